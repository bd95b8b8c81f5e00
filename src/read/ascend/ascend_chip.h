/*
 * ascend_chip.h - what an Ascend database says of its chip besides info.json
 * (SPEC 8): the name in NPU_INFO and the AI core clock in AICORE_FREQ. They
 * are reported, and suggest a --chip, but never give a peak by themselves:
 * a family name does not say how many AI cores the chip has.
 */
#ifndef OPMFU_ASCEND_CHIP_H
#define OPMFU_ASCEND_CHIP_H

#include <sqlite3.h>

#include "trace/device.h"

/* Fills dev->chip (when empty) and dev->seen from the optional tables
 * NPU_INFO and AICORE_FREQ of db; sets dev->cube. Anything missing, of
 * another shape or unreadable is left out: these tables are optional. */
void opmfu_ascend_chip_seen(sqlite3 *db, struct opmfu_device *dev);

#endif
