/* SPDX-License-Identifier: MIT */
/* The event log (evlog.h): records kept as words in the call, encoded into OTF2 when it drains.
 *
 * A drain encodes every record held, in order, with the same OTF2 calls (and the same attribute
 * lists) the call would have made itself, so the archive holds the same records as if they had
 * been written at once. OTF2 flushes its own buffer to disk inside a drain when it fills; the
 * BufferFlush records it writes then end at the last record encoded (rt__evlog_time): they take
 * no time of their own, and times never go back. A drain at the end of a call (timed) is written
 * as one BufferFlush record of its own span: the reader takes it as time the tracer, not the
 * program, took (docs/cpu-time.md). */
#include "trace.h"

#include <stdlib.h>

RT_HIDDEN struct rt__evlog rt__log;

static int rt__draining;
static uint64_t rt__last_encoded; /* the time of the last record given to OTF2 */

int rt__evlog_init(size_t words)
{
    if (words < 8 * RT_EV_MAX_WORDS)
        words = 8 * RT_EV_MAX_WORDS;
    /* (its pages are touched as it first fills: a short run takes only what it uses) */
    rt__log.w = malloc(words * sizeof(uint64_t));
    if (!rt__log.w)
        return -1;
    rt__log.n = 0;
    rt__log.cap = words;
    /* Room left for the records of most calls (a Waitall's completions may still fill it, and
     * the log then drains within the call, untimed). */
    size_t room = words / 8 > 4 * RT_EV_MAX_WORDS ? words / 8 : 4 * RT_EV_MAX_WORDS;
    rt__log.soft = words - room;
    return 0;
}

void rt__evlog_free(void)
{
    free(rt__log.w);
    rt__log.w = NULL;
    rt__log.n = rt__log.cap = rt__log.soft = 0;
}

int rt__evlog_time(uint64_t *t)
{
    if (rt__draining)
        *t = rt__last_encoded;
    return rt__draining;
}

/* The attribute list of a record with flags @p f (values at @p v), or NULL for none. */
static OTF2_AttributeList *rt__attrs(unsigned f, const uint64_t *v)
{
    if (!f)
        return NULL;
    OTF2_AttributeList *al = rt__g.attrs;
    OTF2_AttributeList_RemoveAllAttributes(al);
    /* An attribute OTF2 could not add (out of memory) is left out of its record. */
    if (f & RT_EVF_CALLSITE)
        OTF2_AttributeList_AddCallingContextRef(al, RT_ATTR_CALLSITE, (OTF2_CallingContextRef)*v++);
    if (f & RT_EVF_CPU)
        OTF2_AttributeList_AddUint64(al, RT_ATTR_CPU_TIME, *v++);
    if (f & RT_EVF_IN_PLACE)
        OTF2_AttributeList_AddUint8(al, RT_ATTR_IN_PLACE, 1);
    return al;
}

/* Words after the first two of a record of @p kind, without its attribute values. */
static unsigned rt__body_words(unsigned kind)
{
    switch (kind) {
    case RT_EV_SEND: case RT_EV_RECV: return 2;
    case RT_EV_ISEND: case RT_EV_IRECV: return 3;
    case RT_EV_ISEND_COMPLETE: case RT_EV_IRECV_REQUEST: case RT_EV_REQUEST_TEST:
    case RT_EV_REQUEST_CANCELLED: case RT_EV_NBC_REQUEST: return 1;
    case RT_EV_COLL_END: return 3;
    case RT_EV_NBC_COMPLETE: return 4;
    default: return 0;
    }
}

/* Writes one record (@p p: its words) with OTF2; returns the OTF2 call's code, and in *words
 * how many words the record took. */
static OTF2_ErrorCode rt__encode(OTF2_EvtWriter *w, const uint64_t *p, const char **what, unsigned *words)
{
    OTF2_TimeStamp t = p[0];
    unsigned kind = (unsigned)(p[1] & 0xff), f = (unsigned)(p[1] >> 8 & 0xff);
    uint32_t a = (uint32_t)(p[1] >> 32);
    const uint64_t *b = p + 2;
    unsigned body = rt__body_words(kind);
    *words = 2 + body + !!(f & RT_EVF_CALLSITE) + !!(f & RT_EVF_CPU);
    OTF2_AttributeList *al = f ? rt__attrs(f, b + body) : NULL;
    uint32_t lo = (uint32_t)b[0], hi = (uint32_t)(b[0] >> 32);
    switch (kind) {
    case RT_EV_ENTER:
        *what = "Enter";
        return OTF2_EvtWriter_Enter(w, al, t, a);
    case RT_EV_LEAVE:
        *what = "Leave";
        return OTF2_EvtWriter_Leave(w, al, t, a);
    case RT_EV_SEND:
        *what = "MpiSend";
        return OTF2_EvtWriter_MpiSend(w, al, t, a, lo, hi, b[1]);
    case RT_EV_RECV:
        *what = "MpiRecv";
        return OTF2_EvtWriter_MpiRecv(w, al, t, a, lo, hi, b[1]);
    case RT_EV_ISEND:
        *what = "MpiIsend";
        return OTF2_EvtWriter_MpiIsend(w, al, t, a, lo, hi, b[1], b[2]);
    case RT_EV_IRECV:
        *what = "MpiIrecv";
        return OTF2_EvtWriter_MpiIrecv(w, al, t, a, lo, hi, b[1], b[2]);
    case RT_EV_ISEND_COMPLETE:
        *what = "MpiIsendComplete";
        return OTF2_EvtWriter_MpiIsendComplete(w, al, t, b[0]);
    case RT_EV_IRECV_REQUEST:
        *what = "MpiIrecvRequest";
        return OTF2_EvtWriter_MpiIrecvRequest(w, al, t, b[0]);
    case RT_EV_REQUEST_TEST:
        *what = "MpiRequestTest";
        return OTF2_EvtWriter_MpiRequestTest(w, al, t, b[0]);
    case RT_EV_REQUEST_CANCELLED:
        *what = "MpiRequestCancelled";
        return OTF2_EvtWriter_MpiRequestCancelled(w, al, t, b[0]);
    case RT_EV_COLL_BEGIN:
        *what = "MpiCollectiveBegin";
        return OTF2_EvtWriter_MpiCollectiveBegin(w, al, t);
    case RT_EV_COLL_END:
        *what = "MpiCollectiveEnd";
        return OTF2_EvtWriter_MpiCollectiveEnd(w, al, t, (OTF2_CollectiveOp)a, lo, hi, b[1], b[2]);
    case RT_EV_NBC_REQUEST:
        *what = "NonBlockingCollectiveRequest";
        return OTF2_EvtWriter_NonBlockingCollectiveRequest(w, al, t, b[0]);
    case RT_EV_NBC_COMPLETE:
        *what = "NonBlockingCollectiveComplete";
        return OTF2_EvtWriter_NonBlockingCollectiveComplete(w, al, t, (OTF2_CollectiveOp)a, lo, hi,
                                                            b[1], b[2], b[3]);
    default:
        *what = "event log";
        return OTF2_ERROR_INVALID_DATA;
    }
}

void rt__evlog_drain(int timed)
{
    size_t n = rt__log.n;
    rt__log.n = 0;
    /* After a failure this rank's archive is never written again (core.c): the records go. */
    if (!n || !rt__ok || !rt__g.evt || rt__draining)
        return;
    uint64_t t0 = timed ? rt__now() : 0;
    rt__draining = 1;
    OTF2_EvtWriter *w = rt__g.evt;
    for (size_t i = 0; i < n;) {
        const uint64_t *p = rt__log.w + i;
        const char *what = NULL;
        unsigned words = 2;
        OTF2_ErrorCode e;
        __builtin_prefetch(p + 64);
        /* Most records are an Enter or a Leave without attributes: those first, in few steps. */
        if (RT_LIKELY(p[1] << 48 >> 48 == RT_EV_ENTER)) {
            what = "Enter";
            e = OTF2_EvtWriter_Enter(w, NULL, p[0], (OTF2_RegionRef)(p[1] >> 32));
        } else if (RT_LIKELY(p[1] << 48 >> 48 == RT_EV_LEAVE)) {
            what = "Leave";
            e = OTF2_EvtWriter_Leave(w, NULL, p[0], (OTF2_RegionRef)(p[1] >> 32));
        } else {
            e = rt__encode(w, p, &what, &words);
        }
        if (RT_UNLIKELY(e != OTF2_SUCCESS || !rt__ok)) {
            rt__check(e, what);
            break;
        }
        rt__last_encoded = p[0];
        i += words;
    }
    if (timed && rt__ok) {
        /* (still draining: a flush of OTF2's buffer for this record ends at the last record) */
        uint64_t t1 = rt__now();
        rt__check(OTF2_EvtWriter_BufferFlush(rt__g.evt, NULL, t0, t1), "BufferFlush");
        rt__last_encoded = t1;
    }
    rt__draining = 0;
}
