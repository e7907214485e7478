//go:build !purego

#include "textflag.h"

DATA six<>+0(SB)/8, $(6.0)
GLOBL six<>(SB), RODATA|NOPTR, $8
DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8

// func rowAVX2(out, c, xm, xp, ym, yp, phiZ *float64, blocks int, phiRow, hhf float64, sigma *[4]uint64)
//
// Four points per step, each lane doing exactly the scalar kernel's IEEE
// operations in the same order (see kernelRowGo):
//   v = max(phiRow - phiZ[k], (((((xm+xp)+ym)+yp)+c[k-1])+c[k+1] + hhf) / 6)
//   sigma = max(sigma, bits(|v - c[k]|))   (as signed 64-bit integers; sign cleared)
// c points at the first centre point, so c[k-1] and c[k+1] are in bounds.
TEXT ·rowAVX2(SB), NOSPLIT, $0-88
	MOVQ out+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ xm+16(FP), R8
	MOVQ xp+24(FP), R9
	MOVQ ym+32(FP), R10
	MOVQ yp+40(FP), R11
	MOVQ phiZ+48(FP), R12
	MOVQ blocks+56(FP), CX
	VBROADCASTSD phiRow+64(FP), Y10
	VBROADCASTSD hhf+72(FP), Y11
	VBROADCASTSD six<>(SB), Y12
	VBROADCASTSD absmask<>(SB), Y13
	VPXOR Y9, Y9, Y9
	XORQ AX, AX
	TESTQ CX, CX
	JZ done

loop:
	VMOVUPD (R8)(AX*1), Y0
	VADDPD (R9)(AX*1), Y0, Y0
	VADDPD (R10)(AX*1), Y0, Y0
	VADDPD (R11)(AX*1), Y0, Y0
	VADDPD -8(SI)(AX*1), Y0, Y0
	VADDPD 8(SI)(AX*1), Y0, Y0
	VADDPD Y11, Y0, Y0
	VDIVPD Y12, Y0, Y0
	VSUBPD (R12)(AX*1), Y10, Y1
	VCMPPD $1, Y1, Y0, Y2
	VBLENDVPD Y2, Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	VSUBPD (SI)(AX*1), Y0, Y3
	VANDPD Y13, Y3, Y3
	VPCMPGTQ Y9, Y3, Y4
	VBLENDVPD Y4, Y3, Y9, Y9
	ADDQ $32, AX
	DECQ CX
	JNZ loop

done:
	MOVQ sigma+80(FP), DX
	VMOVDQU Y9, (DX)
	VZEROUPPER
	RET
