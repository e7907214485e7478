//go:build !purego

#include "textflag.h"

DATA six<>+0(SB)/8, $(6.0)
GLOBL six<>(SB), RODATA|NOPTR, $8
DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8

// SIGMA folds |Y0 − u| of the four points at AX into the lanes of Y9 (as
// signed 64-bit integers; the sign bits are cleared, so they order as the
// values do, NaN above everything).
#define SIGMA \
	VSUBPD (SI)(AX*1), Y0, Y3; \
	VANDPD Y13, Y3, Y3; \
	VPCMPGTQ Y9, Y3, Y4; \
	VBLENDVPD Y4, Y3, Y9, Y9

// BLOCK7 updates the four points at byte offset AX, each lane doing
// Jacobi7Ref's IEEE operations in its order.
#define BLOCK7 \
	VMOVUPD (R8)(AX*1), Y0; \
	VADDPD (R9)(AX*1), Y0, Y0; \
	VADDPD (R10)(AX*1), Y0, Y0; \
	VADDPD (R11)(AX*1), Y0, Y0; \
	VADDPD -8(SI)(AX*1), Y0, Y0; \
	VADDPD 8(SI)(AX*1), Y0, Y0; \
	VADDPD (DX)(AX*1), Y0, Y0; \
	VDIVPD Y12, Y0, Y0; \
	VMOVUPD Y0, (DI)(AX*1); \
	SIGMA

// func j7AVX2(next, u, rhs *float64, sx, sy, skip, last, ni, nj int, sigma *[4]uint64)
//
// next, u and rhs point at the box's first point; sx and sy are the strides
// in bytes; a row holds last/8 + 4 points (at least 4): its blocks of four
// start every 32 bytes, and the last one at byte last, overlapping the one
// before when the row is not a multiple of four (the overlapped points are
// recomputed from the same inputs, to the same bits). After nj rows of sy
// bytes the row start moves by skip bytes to the next plane.
TEXT ·j7AVX2(SB), NOSPLIT, $0-80
	MOVQ next+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ rhs+16(FP), DX
	MOVQ sx+24(FP), AX
	MOVQ sy+32(FP), BX
	MOVQ SI, R8
	SUBQ AX, R8
	LEAQ (SI)(AX*1), R9
	MOVQ SI, R10
	SUBQ BX, R10
	LEAQ (SI)(BX*1), R11
	VBROADCASTSD six<>(SB), Y12
	VBROADCASTSD absmask<>(SB), Y13
	VPXOR Y9, Y9, Y9
	XORQ BX, BX
	MOVQ ni+56(FP), R12

iloop7:
	MOVQ nj+64(FP), CX

jloop7:
	MOVQ BX, AX
	MOVQ BX, R13
	ADDQ last+48(FP), R13

kloop7:
	CMPQ AX, R13
	JGE klast7
	BLOCK7
	ADDQ $32, AX
	JMP kloop7

klast7:
	MOVQ R13, AX
	BLOCK7
	ADDQ sy+32(FP), BX
	DECQ CX
	JNZ jloop7
	ADDQ skip+40(FP), BX
	DECQ R12
	JNZ iloop7

	MOVQ sigma+72(FP), DX
	VMOVDQU Y9, (DX)
	VZEROUPPER
	RET

// BLOCK5 updates the four points at byte offset AX as Jacobi5Ref does.
#define BLOCK5 \
	VMOVUPD (R8)(AX*1), Y0; \
	VADDPD (R9)(AX*1), Y0, Y0; \
	VADDPD -8(SI)(AX*1), Y0, Y0; \
	VADDPD 8(SI)(AX*1), Y0, Y0; \
	VMULPD Y10, Y0, Y0; \
	VADDPD (DX)(AX*1), Y0, Y0; \
	VDIVPD Y11, Y0, Y0; \
	VMOVUPD Y0, (DI)(AX*1); \
	SIGMA

// func j5AVX2(next, u, rhs *float64, sx, last, ni int, a, d float64, sigma *[4]uint64)
//
// As j7AVX2 for ni rows sx bytes apart (the 2-D layout: rows along y).
TEXT ·j5AVX2(SB), NOSPLIT, $0-72
	MOVQ next+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ rhs+16(FP), DX
	MOVQ sx+24(FP), AX
	MOVQ SI, R8
	SUBQ AX, R8
	LEAQ (SI)(AX*1), R9
	VBROADCASTSD a+48(FP), Y10
	VBROADCASTSD d+56(FP), Y11
	VBROADCASTSD absmask<>(SB), Y13
	VPXOR Y9, Y9, Y9
	XORQ BX, BX
	MOVQ ni+40(FP), CX

iloop5:
	MOVQ BX, AX
	MOVQ BX, R13
	ADDQ last+32(FP), R13

jloop5:
	CMPQ AX, R13
	JGE jlast5
	BLOCK5
	ADDQ $32, AX
	JMP jloop5

jlast5:
	MOVQ R13, AX
	BLOCK5
	ADDQ sx+24(FP), BX
	DECQ CX
	JNZ iloop5

	MOVQ sigma+64(FP), DX
	VMOVDQU Y9, (DX)
	VZEROUPPER
	RET
