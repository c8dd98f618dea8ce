/* SPDX-License-Identifier: MIT */
/* The event log: what a traced call records, kept as a few plain 64-bit words in the call and
 * encoded into OTF2 records later, when the log drains (evlog.c). Writing OTF2's encoding in the
 * call was half of the tracer's cost per call (issue #45 item 6); the words take a few stores.
 * Included by trace.h only. */
#ifndef RT_EVLOG_H
#define RT_EVLOG_H

#include <stddef.h>
#include <stdint.h>

/* One record: word 0 its time, word 1 its kind (bits 0-7), attribute flags (bits 8-15) and one
 * 32-bit field (bits 32-63), then the kind's own words (evlog.c lists them), then one word per
 * attribute flag set (call site, CPU time; in place carries no value). */
enum rt__ev_kind {
    RT_EV_ENTER = 1,          /* a: region; [call site] [CPU time] */
    RT_EV_LEAVE,              /* a: region; [CPU time] */
    RT_EV_SEND,               /* a: peer; comm | tag << 32, bytes */
    RT_EV_RECV,               /* as RT_EV_SEND */
    RT_EV_ISEND,              /* as RT_EV_SEND, then the request id */
    RT_EV_IRECV,              /* as RT_EV_ISEND */
    RT_EV_ISEND_COMPLETE,     /* the request id */
    RT_EV_IRECV_REQUEST,      /* the request id */
    RT_EV_REQUEST_TEST,       /* the request id */
    RT_EV_REQUEST_CANCELLED,  /* the request id */
    RT_EV_COLL_BEGIN,         /* nothing */
    RT_EV_COLL_END,           /* a: op; comm | root << 32, sent, received; [in place] */
    RT_EV_NBC_REQUEST,        /* the request id */
    RT_EV_NBC_COMPLETE,       /* as RT_EV_COLL_END, then the request id */
};
#define RT_EVF_CALLSITE 1u
#define RT_EVF_CPU 2u
#define RT_EVF_IN_PLACE 4u
/* The most words one record takes (an RT_EV_NBC_COMPLETE: 2 + 4 + its id; an Enter: 2 + 2). */
#define RT_EV_MAX_WORDS 8u

struct rt__evlog {
    uint64_t *w;
    size_t n;    /* words in use */
    size_t cap;  /* words allocated */
    size_t soft; /* past this many, the log drains at the end of the call (rt__evlog_after_call) */
};
RT_HIDDEN extern struct rt__evlog rt__log;

/** Allocates a log of @p words (at least 8 records' worth); 0, or -1 when out of memory. */
RT_HIDDEN int rt__evlog_init(size_t words);
RT_HIDDEN void rt__evlog_free(void);
/**
 * Encodes the records held into OTF2 records, in order, and empties the log. @p timed: the
 * drain is one pause of the program, written as a BufferFlush record of its span, and the
 * records that follow are stamped after it; only at the end of a call, when no record stamped
 * before the drain is still to come. Otherwise (the log filled within a call; close) the time
 * it takes is not written down. Inside the tracer only (rt__g.in_tracer set).
 */
RT_HIDDEN void rt__evlog_drain(int timed);

/** Room for one record of at most RT_EV_MAX_WORDS words (drains a full log first). */
static inline uint64_t *rt__evlog_room(void)
{
    if (RT_UNLIKELY(rt__log.n + RT_EV_MAX_WORDS > rt__log.cap))
        rt__evlog_drain(0);
    return rt__log.w + rt__log.n;
}

/** Appends a record of kind @p kind with @p nw words after its first two; returns them. */
static inline uint64_t *rt__evlog_put(uint64_t t, unsigned kind, unsigned flags, uint32_t a, unsigned nw)
{
    uint64_t *p = rt__evlog_room();
    p[0] = t;
    p[1] = (uint64_t)kind | (uint64_t)flags << 8 | (uint64_t)a << 32;
    rt__log.n += 2 + nw;
    return p + 2;
}

/** At the end of a traced call: drains a log that is nearly full, while no record is pending. */
static inline void rt__evlog_after_call(void)
{
    if (RT_UNLIKELY(rt__log.n > rt__log.soft))
        rt__evlog_drain(1);
}

#endif /* RT_EVLOG_H */
