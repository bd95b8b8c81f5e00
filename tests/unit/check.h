/*
 * check.h - the smallest test harness: CHECK* record failures with file:line
 * and the test's main returns check_done().
 */
#ifndef OPMFU_CHECK_H
#define OPMFU_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                               \
	do {                                                                      \
		check_count++;                                                    \
		if (!(cond)) {                                                    \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                 \
	} while (0)

#define CHECK_INT(a, b)                                                           \
	do {                                                                      \
		long long va_ = (long long)(a), vb_ = (long long)(b);             \
		check_count++;                                                    \
		if (va_ != vb_) {                                                 \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, \
				va_, vb_);                                        \
		}                                                                 \
	} while (0)

#define CHECK_STR(a, b)                                                           \
	do {                                                                      \
		const char *va_ = (a), *vb_ = (b);                                \
		check_count++;                                                    \
		if (!va_ || !vb_ || strcmp(va_, vb_) != 0) {                      \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
				va_ ? va_ : "(null)", vb_ ? vb_ : "(null)");      \
		}                                                                 \
	} while (0)

/* exact double comparison: the values under test are defined bit for bit */
#define CHECK_DBL(a, b)                                                           \
	do {                                                                      \
		double va_ = (a), vb_ = (b);                                      \
		check_count++;                                                    \
		if (!(va_ == vb_)) {                                              \
			check_failures++;                                         \
			fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, #a, \
				va_, vb_);                                        \
		}                                                                 \
	} while (0)

static int check_done(void)
{
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
