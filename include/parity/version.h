#ifndef PARITY_VERSION_H
#define PARITY_VERSION_H
#define PX_VERSION "0.1.0"

/* The results format this program writes, and the oldest it reads. A
 * training run's results are format 8 (kind: training, the loss curve as
 * output: and the run's other figures as train:); an image's results are format 7 (kind: image, the image whole as output:
 * and its denoising path as image:; a reader of 6 must refuse them, not
 * read an image as an embedding's vector); an embedding's are format 6
 * (kind: embedding, each vector whole as output:, no label); a generator's
 * are format 5 (generated:); a classifier's are still written as 4, which
 * every reader since has read. */
#define PX_RESULTS_VERSION 8
#define PX_RESULTS_TRAINING 8
#define PX_RESULTS_IMAGE 7
#define PX_RESULTS_EMBEDDING 6
#define PX_RESULTS_GENERATOR 5
#define PX_RESULTS_CLASSIFIER 4
#define PX_RESULTS_OLDEST 1
#endif
