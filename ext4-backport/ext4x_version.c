// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's version, linked into the module that prepare.sh builds from
 * the distribution's own file system sources (ext4x.ko, or the drop-in
 * flavour). prepare.sh copies this file into the prepared tree after the
 * rename, and the top-level Kbuild passes the VERSION file at the top of
 * the tree as EXT4X_VERSION. With a MODULE_VERSION, modinfo shows the
 * version and modpost adds a srcversion, so a loaded module can be told
 * apart from another build of it. (No lowercase name of the stock module
 * here: rename.sh --check reads this file with the renamed sources.)
 */
#include <linux/module.h>
#include "ext4x_series.h"

MODULE_VERSION(EXT4X_VERSION);
/* the patch series applied, e.g. "6.12: extent-status-statistics-on-... ..." */
MODULE_INFO(series, EXT4X_SERIES);
