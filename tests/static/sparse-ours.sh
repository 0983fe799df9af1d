#!/bin/sh
# CHECK= of tests/static/run.sh's `make C=2`: sparse on the sources we wrote
# (percpu_stats, mbcache2, the test modules, ext4x_version.c), none on
# ext4's own (about 40 files of the prepared tree, most of the stage's time,
# and their output is not ours to fix). Kbuild calls
# $(CHECK) $(CHECKFLAGS) $(c_flags) SOURCE: the source is the last argument.
# Usage (by Kbuild): sparse-ours.sh TOP SPARSE-ARGS... SOURCE
top=$1
shift
for src; do :; done
case ${src#"$top"/} in
percpu_stats/*.c | mbcache2/*.c | tests/kmod/*.c | */fs/ext4/ext4x_version.c)
	exec sparse "$@" ;;
esac
exit 0
