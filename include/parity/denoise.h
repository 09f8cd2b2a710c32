/* DENOISE and DENOISED (include/parity/proto.h, revision 8): an image
 * pipeline's example on the wire. The request encoded; the reply decoded
 * into the example's result: its image as the values ([1, H, W, C], channels
 * last) and what the pipeline recorded beside it (px_image_out: the noise
 * digest, the latents after the recorded steps, the timings).
 *
 * The decoder is strict, because what it reads came from another process
 * (a backend that prints into the stream, another parity's executor): every
 * count is bounded (PX_IMAGE_MAX_SIDE, PX_IMAGE_MAX_STEPS,
 * PX_IMAGE_MAX_RECORDED, PX_IMAGE_MAX_LATENT, and each array by the bytes
 * the frame has left, before anything is allocated), the recorded steps
 * ascend and end at the last step, the digest is 64 hex digits, no byte is
 * left over; a frame that breaks any of it is refused whole, in time
 * linear in its length. It lives in the run layer (not proto, beside
 * generate.c) because it fills results.h's types. */
#ifndef PARITY_DENOISE_H
#define PARITY_DENOISE_H

#include <stddef.h>
#include <stdint.h>

#include "parity/proto.h"
#include "parity/results.h"

typedef struct px_denoise_req {
    uint32_t class_id;       /* the class's index in the labels */
    uint64_t seed;           /* the noise's */
    uint32_t steps;          /* num_inference_steps */
    double guidance_scale;
    uint32_t height, width;  /* pixels */
    uint32_t latent_every;   /* record each k-th step's latent, and the last */
} px_denoise_req;

/* A whole DENOISE frame (header included) appended to b. */
void denoise_request_encode(px_buf *b, const px_denoise_req *q);

/* DENOISED's payload p (pos at its start) into x: dtype, ndim 4 and shape
 * [1, H, W, C], values (the image), forward_ms (the whole call), compiled
 * and img. 0, or -1 with x untouched and *why (n bytes) saying what broke. */
int denoised_decode(px_buf *p, px_example_result *x, char *why, size_t n);

#endif
