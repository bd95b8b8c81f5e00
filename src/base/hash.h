/*
 * hash.h - NEEDSWORK: transitional. analyze/op_mfu.c still includes this for
 * opmfu_mix64; once its pair set moves onto base/idtab.h, delete this file.
 * Include base/idtab.h (hashing, the table) or base/bucket.h instead.
 */
#ifndef OPMFU_HASH_H
#define OPMFU_HASH_H

#include "base/bucket.h"
#include "base/idtab.h"

#endif
