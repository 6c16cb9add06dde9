/* schema.h - the field tables of the config structs and the checks between
 * their fields; shared by config.c, the `config` subcommand and the tests. */
#ifndef DDIOSIM_CONFIGS_SCHEMA_H
#define DDIOSIM_CONFIGS_SCHEMA_H

#include "configs/config.h"
#include "configs/fields.h"

const cfg_table *ddio_machine_table(void);
const cfg_table *ddio_workload_table(void);

/* Cross-field checks of one struct; messages through cfg_fail(c, ...). */
int ddio_machine_check(const ddio_machine *m, const cfg_ctx *c, ddio_err *e);
int ddio_workload_check(const ddio_workload *w, const cfg_ctx *c, ddio_err *e);

/* Fill the machine fields whose default depends on others (DDIO, Shared and
 * CAT masks follow the number of LLC ways and the hierarchy) unless set[i].
 * src (may be NULL) receives, for each derived field, the source of the
 * field it was derived from; derived[i] (may be NULL) is set to 1. */
void ddio_machine_derive(ddio_machine *m, const uint8_t *set, const char **src, uint8_t *derived);

/* The defaults that follow another value of the same file, filled right
 * after the file and before the command-line overrides: uncore.latency_ghz
 * is uncore.ghz unless set[i] (the file's latencies were measured at the
 * clock it runs at).  Before the overrides so that --uncore-ghz changes the
 * clock the machine runs at, not the one the latencies were measured at.
 * derived (may be NULL) as above. */
void ddio_machine_derive_file(ddio_machine *m, const uint8_t *set, uint8_t *derived);

#endif
