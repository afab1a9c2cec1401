/*
 * Where ring execution meets the event loop: between two dispatches, one
 * ready ring runs for one slice (round robin), so input, Wayland requests
 * and frames never wait more than a slice. Before the loop blocks, the
 * server-asleep flag is raised and every ring re-checked (docs/protocol.md,
 * "Synchronisation and memory order"): a client that published work just before the flag
 * went up is seen now, and one that publishes after sees the flag.
 */
#ifndef SMTWC_RING_LOOP_H
#define SMTWC_RING_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct smtwc_transport;

bool ring_loop_init(struct smtwc_transport *transport);
void ring_loop_finish(struct smtwc_transport *transport);
/* Returns true when some ring still has work. */
bool ring_loop_run_slice(struct smtwc_transport *transport);
/* Before blocking: after ring commands ran, look at the rings for a
 * bounded time. Returns true when a ring got work first; false when the
 * event loop has something, or the time ran out (then block as before). */
bool ring_loop_spin(struct smtwc_transport *transport);
/* Returns true when the loop may block: no ring has work. */
bool ring_loop_prepare_sleep(struct smtwc_transport *transport);
void ring_loop_woke(struct smtwc_transport *transport);

/* The [scheduler] settings changed (smtctl set): apply them now. False
 * when fewer worker threads than `workers` asks could start (logged; the
 * ones that did run the rings, none: the main thread). */
bool ring_loop_config_changed(struct smtwc_transport *transport);
/* Starts, stops or replaces the worker threads that run rings' commands
 * (0: the main thread runs them); from the event loop's dispatch only.
 * False as ring_loop_config_changed. */
bool ring_loop_set_workers(struct smtwc_transport *transport, unsigned n);

#endif
