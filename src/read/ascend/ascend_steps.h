/*
 * ascend_steps.h - the training steps of an Ascend export (SPEC 11):
 * STEP_TIME (id = step number, startNs, endNs), or else the ProfilerStep#N
 * rows of PYTORCH_API. Both are optional: no steps means the whole trace is
 * one step.
 */
#ifndef OPMFU_ASCEND_STEPS_H
#define OPMFU_ASCEND_STEPS_H

#include <sqlite3.h>

#include "trace/trace.h"

/* Fills t->steps (start order) from db, whose STRING_IDS t->strs holds
 * already. Rows of another shape or with bad times are left out. Returns 0,
 * or -1 when out of memory. */
int opmfu_ascend_steps(sqlite3 *db, struct opmfu_trace *t);

#endif
