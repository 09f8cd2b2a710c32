#ifndef PARITY_VERSION_H
#define PARITY_VERSION_H
#define PX_VERSION "0.1.0"
#endif
