/*
 * What smt-hostile's case files share: the client's connection and ring,
 * and the helpers that write commands, publish, and wait for the verdict
 * (hostile_client.c). Each case file is one kind of rule breaking; main
 * (smt-hostile.c) dispatches on the case name.
 */
#ifndef SMT_HOSTILE_H
#define SMT_HOSTILE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "smt-ring-v1-client-protocol.h"
#include "protocol/smt-ring-client.h"

struct hostile {
	struct wl_display *display;
	struct smt_ring_manager_v1 *manager;
	struct wl_compositor *compositor;
	struct wl_seat *seat;
	struct smt_ring_v1 *ring;
	int status_fd, global_fd;
	/* the ring as the client maps it */
	uint8_t *mem;
	uint32_t area_size;
	struct smt_ring_header *hdr;
	uint8_t *area;
	uint64_t head;
	int server_efd, client_efd;
	const struct smt_ring_status *status; /* read-only, server-written */
	const struct smt_global_status *global;
	struct smt_pool_v1 *pool;
};

/* Every wait here ends on an event: the protocol error, the ring's DEAD
 * flag, its tail. HANG_MS only bounds a compositor that never answers (a
 * failure either way), so a slow or loaded machine cannot fail a case. */
#define HANG_MS 120000

int make_memfd(size_t size, unsigned int seals);
/* A pool's memfd as create_pool requires it (session 41): sealed against
 * shrinking and against writes (F_SEAL_FUTURE_WRITE). Holes only: the
 * cases that use it never write their pools. */
int make_pool_memfd(size_t size);
/* Creates a ring with the given fd and size; keeps a writable mapping. */
void create_ring_with(
		struct hostile *h, int fd, uint32_t area_size, int server_efd, int client_efd);
void create_good_ring(struct hostile *h, uint32_t area_size);
/* Appends raw bytes at head (no PAD logic: callers write what they mean). */
void put(struct hostile *h, const void *bytes, size_t len);
/* Publishes head (any value, also a bad one) and wakes the server if it
 * sleeps, as a real client does. */
void publish(struct hostile *h, uint64_t head);
/* Waits for the connection to die with a protocol error; returns true if
 * it did and the error is on the expected interface with the expected
 * code. An error for a request arrives by the round trip after it; an
 * error for ring commands comes once the compositor ran them: it marks
 * the ring DEAD (and wakes us), then posts the error (with workers, once
 * the main thread settles the run, maybe after answering round trips), so
 * round trips go on until the error ends the connection. */
bool expect_error(struct hostile *h, const struct wl_interface *iface, uint32_t code);
/* Waits (dispatching) until the compositor consumed up to pos. */
bool wait_tail(struct hostile *h, uint64_t pos);
void cmd(struct hostile *h, uint16_t opcode, uint32_t size, const void *payload,
		size_t payload_len);
double now_ms(void);
/* Publishes head and wakes the server if it sleeps (the real protocol). */
void kick(struct hostile *h);
bool ring_dead(const struct hostile *h);
/* Sleeps until the compositor writes our eventfd or our socket has data
 * (dispatched), or timeout_ms. false if the connection died. */
bool wait_event(struct hostile *h, int timeout_ms);
/* Waits for tail >= pos through the WAITING protocol (eventfd), also
 * reading the Wayland socket. false if the ring died or time ran out. */
bool wait_tail_efd(struct hostile *h, uint64_t pos, int timeout_ms);
/* Appends one command, PADding to the end of the area when it would wrap
 * and waiting for space when the ring is full. */
bool emit(struct hostile *h, const void *bytes, uint32_t len);
void emit_create(struct hostile *h, uint32_t id, uint32_t w, uint32_t hh, uint32_t f);
void emit_target(struct hostile *h, uint32_t id);
void emit_fence(struct hostile *h, uint64_t serial);
/* Prints the ring's death certificate; true if it names code (and opcode,
 * unless opcode < 0). */
bool check_death(struct hostile *h, uint32_t code, int opcode);

/* Connects and binds smt_ring_manager_v1; false (said on stderr) if not. */
bool hostile_connect(struct hostile *h);

/* A global a case binds: the first one of its interface the registry
 * offers, at the given version, into *proxy (left NULL if not offered).
 * bind_globals fills name too. */
struct hostile_global {
	const struct wl_interface *interface;
	uint32_t version;
	void **proxy;
	uint32_t name; /* the registry's, for binding it again */
};
/* Binds each of the n wanted globals the compositor offers (one round
 * trip); returns the registry (kept for more binds), NULL if the round
 * trip failed. */
struct wl_registry *bind_globals(struct hostile *h, struct hostile_global *wanted, size_t n);

/* ---- the cases, by kind ------------------------------------------------ */

/* hostile_framing.c: bad fds and sizes at ring creation, bad heads,
 * sizes, opcodes and races on the ring. 2 for an unknown name. */
int hostile_framing_case(struct hostile *h, const char *name);
int case_giant_geometry(struct hostile *h);
int case_head_backwards(struct hostile *h);
int case_head_huge(struct hostile *h);

/* hostile_ops.c: one bad command per case, from the opcode table and a
 * hand list of values (op:NAME). */
int hostile_op_case(struct hostile *h, const char *name);
void hostile_list_ops(void);

/* hostile_state.c: what a client names (foreign drawables, pools). */
int case_header_scribble(struct hostile *h);
int case_foreign(struct hostile *h, const char *name, uint32_t id);
int case_pool(struct hostile *h, const char *name);
int case_pixmaps_10k(struct hostile *h);

/* hostile_resources.c: resource attacks, each refused with LIMIT, and
 * the drain (queued work a request must not wait for). */
int case_ring_flood(struct hostile *h);
int case_pool_flood(struct hostile *h);
int case_canvas_huge(struct hostile *h);
int case_canvas_grow(struct hostile *h);
int case_memory_rings(struct hostile *h);
int case_clip_grid(struct hostile *h, int rings, bool hold);
int case_clip_max(struct hostile *h, int rings, uint64_t ballast_kib);
int case_hold_memory(struct hostile *h, int n);
int case_drain_stall(struct hostile *h);
int case_drain_attack(struct hostile *h, double seconds);

/* hostile_load.c: long-running load and latency probes, fds held. */
int case_no_read(struct hostile *h, double seconds);
int case_keymap_no_read(struct hostile *h, int n);
int case_keymap_read(struct hostile *h, int n);
int case_keymaps_idle(struct hostile *h, int connections);

/* hostile_objects.c: hold-objects KIND N (what each kind of Wayland
 * object costs, held for the accounts to be read). */
int case_hold_objects(struct hostile *h, const char *kind, int n);
int case_ring_full(struct hostile *h, double seconds, uint32_t side);
int case_echo_probe(struct hostile *h, double seconds, int interval_ms, bool verbose);
int case_sync_probe(struct hostile *h, double seconds);
int case_hold_fds(struct hostile *h, int pools);

/* hostile_accounts.c: fds parked in libwayland's buffer, connections of
 * one process, pool resizes and address space (issue 24). */
int case_park_fds(struct hostile *h, int n);
int case_hold_parked(struct hostile *h, int connections);

int case_connections(struct hostile *h, int n, bool hold);
int case_pool_resize_stack(struct hostile *h, int n);
int case_address_flood(struct hostile *h);
int case_hold_address(struct hostile *h, int n);
int case_shm_pool_flood(struct hostile *h);
int case_hold_shm_buffers(struct hostile *h, int n);
int case_hold_memory_conns(struct hostile *h, int connections);

/* hostile_wakeup.c: the wake-up eventfds made blocking by the client. */
int case_wake_full(struct hostile *h);
int case_wake_steal(struct hostile *h, double seconds);
int case_wake_semaphore(struct hostile *h);

/* hostile_pool_fds.c: pools of fds of every kind, and of holes. */
int case_pool_holes(struct hostile *h, int mib);
int case_ring_holes(struct hostile *h, int rings);
int case_pool_fd_kinds(void);

/* hostile_order.c: order and slicing of queued work (split commands, a
 * PRESENT copied in bands). */
int case_split_around_request(struct hostile *h);
int case_submit_shared_ring(struct hostile *h);
int case_present_split(struct hostile *h);
int case_present_attack(struct hostile *h, double seconds);
int case_present_recanvas(struct hostile *h, int rounds);
int case_present_each(struct hostile *h, int rounds);

/* hostile_accounting.c: what bookkeeping costs (tables, canvases), teardown
 * of many objects, requests counted as ordered, a victim driven by lines. */
int case_hold_pixmaps(struct hostile *h, const char *arg);
int case_hold_top_id(struct hostile *h, int rings);
int case_sparse_ids(struct hostile *h);
int case_canvas_flood(struct hostile *h, int n);
int case_surface_flood(struct hostile *h, int n);
int case_region_flood(struct hostile *h, int n);
int case_ordered_flood(struct hostile *h, const char *name);
int case_canvas_surface_gone(struct hostile *h);
int case_pixmap_churn(struct hostile *h);
int case_trip_on_line(struct hostile *h);

/* hostile_lifecycle.c: the extension's objects in odd orders, descriptors
 * of the wrong kind, zero and huge sizes (life:NAME [ARG]). 2 for an
 * unknown name. */
int hostile_lifecycle_case(struct hostile *h, const char *name, const char *arg);

/* hostile_core.c: floods of core requests whose handlers are wlroots'
 * (offers, damage, regions, subsurface commits, frame callbacks,
 * activation tokens). *handled false for a name it does not know. */
int hostile_core_case(struct hostile *h, const char *name, const char *arg, const char *arg2,
		bool *handled);

/* hostile_keymap.c: virtual keyboards' keymaps (short, unterminated, not
 * a file, too large, too many includes, too many keyboards). *handled
 * false for a name it does not know. */
int hostile_keymap_case(struct hostile *h, const char *name, const char *arg, bool *handled);

#endif
