#!/bin/sh
# Harness self-check: settings read with boot_param_int. The self-check
# boots with ext4x_harness_n=42 and ext4x_harness_bad=1O (a letter O): the
# first is taken, an absent setting keeps its default, and the mistyped one
# fails the file with a result that names it (two passes, one failure).
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh
n=5
boot_param_int n ext4x_harness_n 1 100
ktap_check "ext4x_harness_n=42 is read as 42" [ "$n" = 42 ]
d=9
boot_param_int d ext4x_harness_absent 1 100
ktap_check "an absent setting keeps its default" [ "$d" = 9 ]
b=5
boot_param_int b ext4x_harness_bad 1 100
ktap_test_pass "a mistyped setting was taken as $b"
