/*
 * replay.c - runs a fuzz target over every file of the corpus folders given
 * on the command line, so the seed corpus is exercised in every `meson test`.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	/* exact-size buffer, so an over-read is caught by AddressSanitizer */
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, count = 0;
	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		if (!d) {
			fprintf(stderr, "cannot open corpus %s\n", argv[i]);
			return 1;
		}
		while ((e = readdir(d)) != NULL) {
			char path[4096];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path)) {
				fprintf(stderr, "cannot read %s\n", path);
				closedir(d);
				return 1;
			}
			count++;
		}
		closedir(d);
	}
	printf("%d inputs replayed\n", count);
	return count ? 0 : 1;
}
