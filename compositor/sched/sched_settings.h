/*
 * sched_settings — every tunable of the scheduler once: its [scheduler]
 * key, its default (the X server's), its range, and the smt_sched_params
 * field it sets. The config parser (the struct, keys and defaults), the
 * scheduler (smt_sched_params_default) and ring_loop (config -> params)
 * all expand this list, so a new setting is a row here plus the code in
 * sched.c that reads it, and docs/config.md.
 *
 * X(key, config field, default, min, max, check, params field, unit):
 * config fields are ints in the file's units; the params field gets
 * value * unit (ms -> ns). check: INT, or PRIORITY (also checked as
 * priority-min <= priority-base <= priority-max once the file is read).
 * The mode key (fair or fifo) is not a number: SMT_SCHED_DEFAULT_FIFO.
 */
#ifndef SMTWC_SCHED_SETTINGS_H
#define SMTWC_SCHED_SETTINGS_H

#define SMT_SCHED_DEFAULT_FIFO false

#define SMT_SCHED_SETTINGS(X)                                                          \
	X("slice-ms", slice_ms, 5, 1, 1000, INT, slice_ns, 1000000)                    \
	X("lone-slice-ms", lone_slice_ms, 15, 1, 1000, INT, lone_slice_ns, 1000000)    \
	X("lone-after-ms", lone_after_ms, 1000, 0, 60000, INT, lone_after_ns, 1000000) \
	X("priority-base", priority_base, 0, -20, 20, PRIORITY, prio_base, 1)          \
	X("priority-min", priority_min, -20, -20, 20, PRIORITY, prio_min, 1)           \
	X("priority-max", priority_max, 20, -20, 20, PRIORITY, prio_max, 1)            \
	X("input-boost", input_boost, 1, 0, 20, INT, input_boost, 1)                   \
	X("fifo-commands", fifo_commands, 10, 1, 100000, INT, fifo_commands, 1)        \
	X("idle-praise-ms", idle_praise_ms, 0, 0, 60000, INT, idle_praise_ns, 1000000) \
	X("input-boost-interval-ms", input_boost_interval_ms, 0, 0, 60000, INT,        \
			input_boost_interval_ns, 1000000)                              \
	X("boost-lane", boost_lane, 1, 0, 1, INT, boost_lane, 1)

#endif
