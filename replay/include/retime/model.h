/* SPDX-License-Identifier: MIT */
/**
 * @file model.h  Network models behind one small ops table.
 *
 * The replay engine asks a model six things about a message of m bytes (all in picoseconds):
 *  - o_send(m): CPU time the sender is busy before the message can be injected;
 *  - o_recv(m): CPU time the receiver is busy once the message has arrived;
 *  - gap(m): how long it occupies a rank's send port and, on arrival, its receive port
 *    (single port per direction, full duplex): consecutive injections are >= gap apart;
 *  - wire(m): time from the start of its injection to its arrival at the receiver;
 *  - send_hold(m): how long after its injection starts an eager blocking send stays in the call;
 *  - handshake(m): the extra time a rendezvous spends on its control message before the data
 *    moves (after both sides are posted).
 * Adding a model is one file with its ops table plus one line in model.c's registry.
 */
#ifndef RETIME_MODEL_H
#define RETIME_MODEL_H

#include <stddef.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most measured sizes a Hockney β table holds. */
#define RT_BETA_TABLE_MAX 64

/** Model parameters as given on the command line or in a parameter file; unused ones are ignored. */
struct rt_model_params {
    double alpha_ns;          /**< Hockney latency α [ns] */
    double beta_ns_per_byte;  /**< Hockney inverse bandwidth β [ns/B] */
    double L_ns;              /**< LogP latency L [ns] */
    double o_s_ns;            /**< LogP send overhead o_s [ns] */
    double o_r_ns;            /**< LogP receive overhead o_r [ns] */
    double g_ns;              /**< LogP gap between consecutive messages g [ns] */
    double G_ns_per_byte;     /**< LogGP gap per byte G [ns/B] */
    /** Hockney with a β per measured size (the Shift paper's Table 1) when nbeta > 0: T(m) runs
     *  piecewise linearly through (0, α) and (s_i, α + β_i·s_i), and beyond the largest size as
     *  α + β_last·m; beta_ns_per_byte is then unused. Sizes strictly increasing. */
    uint32_t nbeta;
    rt_bytes beta_size[RT_BETA_TABLE_MAX];
    double beta_at[RT_BETA_TABLE_MAX];
};

/** What a parameter's value is measured in (and how the CLI and parameter files parse it). */
enum rt_param_unit { RT_PU_TIME, RT_PU_INV_BW };

/** One named model parameter: its option/file key, unit, place in struct rt_model_params. */
struct rt_param_desc {
    const char *name;       /**< "alpha", "L", "o_s", ... (CLI: --NAME) */
    const char *model;      /**< the model that uses it */
    enum rt_param_unit unit;
    size_t offset;          /**< offsetof(struct rt_model_params, ...) */
    const char *help;
};

/** The table of all model parameters, terminated by an entry with name NULL. */
extern const struct rt_param_desc rt_model_param_table[];
/** Index of parameter @p name in rt_model_param_table, or -1. */
int rt_model_param_find(const char *name);
/** Pointer to the field of @p p that parameter @p index describes. */
double *rt_model_param_ptr(struct rt_model_params *p, int index);

struct rt_model_ops {
    const char *name;
    /** Checks the parameters; fills @p err and returns an error code when one is unusable. */
    int (*validate)(const struct rt_model_params *p, rt_error *err);
    rt_time_ps (*o_send)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*o_recv)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*gap)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*wire)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*send_hold)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*handshake)(const struct rt_model_params *p, rt_bytes m);
};

/** A model instance: ops plus parameters. Plain value, no ownership. */
struct rt_model {
    const struct rt_model_ops *ops;
    struct rt_model_params params;
};

/**
 * Looks up a model by name ("hockney", "logp") and checks its parameters.
 * @return RT_OK, RT_EINVAL for an unknown name (the message lists the known ones) or the
 *         model's own validation error.
 */
int rt_model_init(struct rt_model *m, const char *name, const struct rt_model_params *p, rt_error *err);

/** Checks that every parameter of model @p model is finite, >= 0 and <= 1000 s (or 1 ms/B). */
int rt_model_check_params(const struct rt_model_params *p, const char *model, rt_error *err);

/** A parameter file's settings beside the model's parameters (each with whether the file had it). */
struct rt_param_settings {
    rt_bytes eager_limit; /**< `eager_limit`: the largest eager payload [B] */
    int have_eager;
    int injection;        /**< `injection`: enum rt_injection (retime/replay.h) */
    int have_injection;
};

/**
 * Reads a parameter file (docs/parameter-file.md): `key = value` lines with units, `#` comments.
 * Sets the model parameters it holds in @p p and their bits (1u << table index) in *@p given;
 * `beta@SIZE` keys fill p's β table (nbeta, beta_size, beta_at; sorted by size); the
 * `eager_limit` and `injection` keys set @p s's fields. Keys `format` and `info.*` are read but
 * not used; any other key is an error naming the file and line.
 */
int rt_model_params_load(const char *path, struct rt_model_params *p, unsigned *given, struct rt_param_settings *s,
                         rt_error *err);

/**
 * The eager limit as an MPI library has it (docs/network.md, "Eager limit"): retime sends a message
 * of m bytes eagerly iff m <= its eager limit; a library's setting @p setting (Open MPI's
 * btl_<transport>_eager_limit, MPICH's MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE, ..._NEMESIS_SHM_EAGER_MAX_SZ,
 * ..._CH4_SHM_POSIX_IQUEUE_CELL_SIZE, ..._CH4_OFI_EAGER_MAX_MSG_SIZE, UCX_RNDV_THRESH) of @p value
 * bytes gives the limit *@p payload that sends the same messages eagerly, less the library's header
 * and one byte where its test is <. *@p rule (if not NULL) says how ("less Open MPI ob1's 56 B
 * header"; a static string).
 * @return RT_OK, RT_EINVAL for a setting it does not know, RT_ERANGE when no payload is left.
 */
int rt_eager_limit_of(const char *setting, rt_bytes value, rt_bytes *payload, const char **rule, rt_error *err);

/** Parses an eager limit given as SIZE (retime's: the largest eager payload) or SETTING=SIZE (a
 *  library's, through rt_eager_limit_of; *@p rule is then set, else NULL). */
int rt_eager_limit_parse(const char *spec, rt_bytes *payload, const char **rule, rt_error *err);

/** Names of the known models, separated by '|' ("hockney|logp"), for usage texts. */
const char *rt_model_names(void);

/** Converts a time in ns to ps, rounded, saturating at ~46 days. */
rt_time_ps rt_ns_to_ps(double ns);

/** An op that costs nothing (Hockney's CPU overheads and handshake, LogP-lite's send hold). */
rt_time_ps rt_model_zero(const struct rt_model_params *p, rt_bytes m);

/** Hockney's point-to-point time T(m) = α + β·m in ps (what wire() and gap() return for it). */
rt_time_ps rt_hockney_time_ps(const struct rt_model_params *p, rt_bytes m);

extern const struct rt_model_ops rt_model_hockney;
extern const struct rt_model_ops rt_model_logp;

#ifdef __cplusplus
}
#endif
#endif
