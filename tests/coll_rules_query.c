/* SPDX-License-Identifier: MIT */
/* Answers rule-set queries for tests/coll_rules_doc.py: each line of standard input,
 *   RULES OP VECTOR P BLOCK TOTAL
 * (OP as rt_coll_op_name spells it: allreduce, bcast, ...; VECTOR 0 or 1), gets the name of the
 * algorithm rt_coll_plan_choose picks under rule set RULES (retime, mpich, openmpi or a file). */
#include <stdio.h>
#include <string.h>

#include "retime/replay.h"

int main(void)
{
    char line[512], rules_name[256] = "", opname[64];
    rt_coll_rules *rules = NULL;
    unsigned vector, P;
    unsigned long long block, total;
    while (fgets(line, sizeof line, stdin)) {
        char name[256];
        if (sscanf(line, "%255s %63s %u %u %llu %llu", name, opname, &vector, &P, &block, &total) != 6) {
            fprintf(stderr, "coll_rules_query: bad line: %s", line);
            return 2;
        }
        if (strcmp(name, rules_name)) {
            rt_error err = {0};
            rt_coll_rules_free(rules);
            rules = NULL;
            if (rt_coll_rules_open(name, &rules, &err)) {
                fprintf(stderr, "coll_rules_query: %s\n", err.msg);
                return 2;
            }
            snprintf(rules_name, sizeof rules_name, "%s", name);
        }
        int op = 0;
        while (op <= RT_COLL_OTHER && strcmp(rt_coll_op_name(op), opname))
            op++;
        if (op > RT_COLL_OTHER) {
            fprintf(stderr, "coll_rules_query: no operation '%s'\n", opname);
            return 2;
        }
        struct rt_coll_plan plan;
        rt_coll_plan_choose(rules, NULL, op, (int)vector, P, block, total, &plan);
        printf("%s\n", rt_coll_algo_name(plan.algo));
    }
    rt_coll_rules_free(rules);
    return 0;
}
