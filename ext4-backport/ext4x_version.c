// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's version in the module built from the kernel's fs/ext4.
 *
 * prepare.sh copies this file beside the distribution's fs/ext4 sources and
 * links it into ext4x.ko (or the drop-in ext4.ko); the top-level Kbuild
 * passes the VERSION file at the top of the tree as EXT4X_VERSION. With a
 * MODULE_VERSION, modinfo shows the version and modpost adds a srcversion,
 * so a loaded module can be told apart from another build of it.
 */
#include <linux/module.h>

MODULE_VERSION(EXT4X_VERSION);
