/* SPDX-License-Identifier: MIT */
/* Unit tests: parsing of numbers with units. */
#include "retime/units.h"
#include "test_util.h"

int main(void)
{
    rt_error err;
    double x;
    rt_bytes b;
    CHECK_EQ_INT(rt_parse_time_ns("2.122us", &x, &err), RT_OK);
    CHECK_NEAR(x, 2122.0, 1e-9);
    CHECK_EQ_INT(rt_parse_time_ns("15ns", &x, &err), RT_OK);
    CHECK_NEAR(x, 15.0, 0);
    CHECK_EQ_INT(rt_parse_time_ns("1.5ms", &x, &err), RT_OK);
    CHECK_NEAR(x, 1.5e6, 1e-6);
    CHECK_EQ_INT(rt_parse_time_ns("2s", &x, &err), RT_OK);
    CHECK_NEAR(x, 2e9, 0);
    CHECK_EQ_INT(rt_parse_time_ns("2122", &x, &err), RT_EUNIT); /* a bare number is ambiguous */
    CHECK_CONTAINS(err.msg, "needs a unit");
    CHECK_EQ_INT(rt_parse_time_ns("2.1xs", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_time_ns("-1us", &x, &err), RT_EUNIT);
    CHECK_CONTAINS(err.msg, "negative");
    CHECK_EQ_INT(rt_parse_time_ns("", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_time_ns("us", &x, &err), RT_EUNIT);

    CHECK_EQ_INT(rt_parse_bytes("64KiB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 65536);
    CHECK_EQ_INT(rt_parse_bytes("256KB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 256000);
    CHECK_EQ_INT(rt_parse_bytes("1MiB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 1048576);
    CHECK_EQ_INT(rt_parse_bytes("2MB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 2000000);
    CHECK_EQ_INT(rt_parse_bytes("1000", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 1000);
    CHECK_EQ_INT(rt_parse_bytes("12B", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 12);
    CHECK_EQ_INT(rt_parse_bytes("1.5B", &b, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_bytes("64kib", &b, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_bytes("1e30B", &b, &err), RT_ERANGE);

    CHECK_EQ_INT(rt_parse_ns_per_byte("0.7595ns/B", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.7595, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76us/KB", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.76, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("1ns/KiB", &x, &err), RT_OK);
    CHECK_NEAR(x, 1.0 / 1024, 1e-15);
    CHECK_EQ_INT(rt_parse_ns_per_byte("1GB/s", &x, &err), RT_OK); /* 1 GB/s = 1 ns/B */
    CHECK_NEAR(x, 1.0, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("10GB/s", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.1, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0GB/s", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76ns/parsec", &x, &err), RT_EUNIT);

    CHECK_EQ_INT(rt_parse_number("0.5", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.5, 0);
    CHECK_EQ_INT(rt_parse_number("0.5x", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_number("nan", &x, &err), RT_EUNIT);

    char buf[32];
    CHECK(strcmp(rt_format_time(buf, sizeof buf, 2122.0), "2.122us") == 0);
    CHECK(strcmp(rt_format_time(buf, sizeof buf, 11526.0), "11.53us") == 0);
    CHECK(strcmp(rt_err_name(RT_EDEADLOCK), "RT_EDEADLOCK") == 0);
    CHECK(strcmp(rt_strerror(RT_EUNMATCHED), "unmatched message") == 0);
    TEST_MAIN_END();
}
