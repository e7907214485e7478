/*
 * bsp.h: BSPlib for gridtui, with the prototypes of the BSPlib standard
 * (J. M. D. Hill, B. McColl, D. C. Stefanescu, M. W. Goudreau, K. Lang,
 * S. B. Rao, T. Suel, T. Tsantilas, R. H. Bisseling, "BSPlib: The BSP
 * programming library", Parallel Computing 24(14), 1998), so that a BSPlib
 * program compiles unchanged. Link it with bsp.c; run it with
 *
 *     gridtui run --app bsp --param program=./prog --nodes ...
 *
 * Each process of the program is started and supervised by a gridtui
 * worker; puts, gets and messages travel between the workers over RMNP at
 * bsp_sync. docs/BSP.md says what is supported.
 */
#ifndef GRIDTUI_BSP_H
#define GRIDTUI_BSP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The standard's sizes are ints; bsp_size_t names them as MulticoreBSP does. */
typedef int bsp_size_t;

void bsp_begin(int maxprocs);
void bsp_end(void);
void bsp_init(void (*spmd)(void), int argc, char **argv);
void bsp_abort(const char *format, ...);
int bsp_nprocs(void);
int bsp_pid(void);
double bsp_time(void);
void bsp_sync(void);

/* DRMA */
void bsp_push_reg(const void *ident, int size);
void bsp_pop_reg(const void *ident);
void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes);
void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes);
void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes);
void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes);

/* BSMP */
void bsp_set_tagsize(int *tag_nbytes);
void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes);
void bsp_qsize(int *nmessages, int *accum_nbytes);
void bsp_get_tag(int *status, void *tag);
void bsp_move(void *payload, int reserved_nbytes);
int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

/* Checkpoints (gridtui's, not the standard's): the buffers registered with
 * bsp_checkpoint_reg (in the same order on every start) are saved inside
 * the bsp_sync that ends every checkpoint_every-th superstep, after its
 * communication. After a lost process every process starts again; the
 * first bsp_sync restores the buffers, and bsp_resumed then returns the
 * superstep that sync ended (0 on a fresh start): the program goes on
 * from where that bsp_sync returned. */
void bsp_checkpoint_reg(void *addr, int nbytes);
int bsp_resumed(void);

#ifdef __cplusplus
}
#endif
#endif
