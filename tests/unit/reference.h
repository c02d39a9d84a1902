// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reference data that is not ours to copy into the repository (real ArduPilot
 * logs, the official MAVLink XML) is read from the folder $FULMAR_REFERENCE,
 * by default FULMAR_REFERENCE_DEFAULT (set by meson: ../shared/reference beside
 * the source tree). A test binary runs its reference cases as a separate meson
 * test (argument --reference) that exits 77, skipped with the reason on its
 * first line, where the data is absent, so the skip shows in meson's counts
 * and in tools/test's list of skips instead of passing as OK.
 */
#ifndef FULMAR_TESTS_REFERENCE_H
#define FULMAR_TESTS_REFERENCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FULMAR_REFERENCE_DEFAULT
#error "meson passes FULMAR_REFERENCE_DEFAULT"
#endif

/* The folder SUB of the reference data, written to OUT; 0, or -1 if it is absent. */
static inline int reference_dir(const char *sub, char *out, size_t cap)
{
	const char *root = getenv("FULMAR_REFERENCE");
	struct stat st;

	if (!root || !*root)
		root = FULMAR_REFERENCE_DEFAULT;
	snprintf(out, cap, "%s/%s", root, sub);
	return stat(out, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* True when argv asks for the reference cases. */
static inline int reference_wanted(int argc, char **argv)
{
	return argc > 1 && strcmp(argv[1], "--reference") == 0;
}

/* The exit status for reference data that is absent: says so, and skips. */
static inline int reference_absent(const char *dir)
{
	printf("SKIP: reference data absent: %s (set FULMAR_REFERENCE to the folder holding "
	       "dataflash/ and mavlink/)\n", dir);
	return 77;
}

#endif
