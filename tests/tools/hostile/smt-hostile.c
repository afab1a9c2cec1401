/*
 * smt-hostile: a client that breaks one rule of smt-ring-v1 on purpose, for
 * the tests that prove the compositor survives it. It speaks the protocol
 * directly (not through libsmt, which would refuse to misbehave).
 *
 *   smt-hostile CASE [ARG]
 *   smt-hostile --list-ops         the table-driven per-opcode cases (op:NAME)
 *
 * Long-running cases for fault and load tests: no-read SECONDS (floods
 * wl_display.sync without ever reading its socket), ring-full SECONDS (keeps
 * its ring full of million-pixel fills and waits on a tail that never
 * comes), echo-probe SECONDS [INTERVAL_MS] (FENCE round-trip latency through
 * the ring, "ECHO n= p50= p99= max=" in ms, and every sample with -v).
 *
 * Resource attacks: ring-flood, pool-flood, canvas-huge, canvas-grow,
 * memory-rings (each must be refused with a LIMIT error naming the limit),
 * drain-stall (requests that need hours of queued work must not run it),
 * present-split (other clients are answered while a huge PRESENT copies),
 * split-around-request (a command split around a request runs after it),
 * present-recanvas [N] (a canvas replaced under its id right after its
 * PRESENT: the PRESENT stays the old canvas's), present-each [N] (every
 * PRESENT of unshown canvases reported, in order: N single, N bursts),
 * submit-shared-ring (a submit on a shared-memory ring is refused),
 * hold-memory N (keeps N 64 MiB pixmaps until killed). Issue 24's accounts:
 * park-fds N (a message that never completes, with N fds: disconnected
 * past client-fds-in-flight), hold-parked N (N connections parking 56 fds
 * each, held), connections N / hold-connections N (N more connections of
 * this process), resize-stack N (N resizes of one pool queued behind
 * hours of work, held), address-flood (4 GiB pools until refused),
 * hold-memory-conns N (N connections with two 64 MiB pixmaps each, held),
 * hold-address N (N pools of 4 GiB, held), shm-pool-flood (core wl_shm
 * pools of 2 GiB until disconnected), hold-shm-buffers N (N wl_shm pools
 * destroyed with one buffer each kept, held).
 *
 * For tests/bench/hostile: big-fill SECONDS (ring-full with 4096x4096
 * fills), drain-attack SECONDS, present-attack SECONDS, hold-fds N (a ring and N pools until
 * killed), sync-probe SECONDS (wl_display round trips, "SYNC n= p50= ...").
 *
 * Keymaps sent to the client (fds unread): keymap-no-read N, keymap-read
 * N, keymaps-idle C (C connections each reading one keymap, then idle).
 *
 * What each kind of Wayland object costs (hostile_objects.c): hold-objects
 * KIND [N] (subsurface, toplevel, mapped, positioner, viewport,
 * data-device, frame, buffer; held).
 *
 * Memory and costs (issue 24): hold-pixmaps RINGSxPIXMAPS, hold-top-id [RINGS],
 * pixmap-churn, canvas-flood N, surface-flood N and region-flood N (held
 * until killed once made), sparse-ids
 * (refused by the memory limit), get_canvas-ordered and
 * create_pool-ordered (refused naming ordered-requests),
 * canvas-surface-gone, trip-on-line (a victim: a round trip per line).
 *
 * Core requests wlroots handles (hostile_core.c): offer-flood KIND [N] and
 * hold-offers KIND N (KIND data, primary or control), damage-flood N
 * [SECONDS], region-rects N, hold-region N, region-copies SURFACES
 * COMMITS, hold-region-copies SURFACES COMMITS, cached-commits N,
 * frame-flood N, frame-commits N, token-flood N, inhibitor-flood N,
 * screencopy-flood N, screencopy-loop N SECONDS (N copies always waiting),
 * screencopy-drop N SECONDS (N copies asked, the unanswered destroyed),
 * hold-screencopy N (N copies asked, frames kept), shm-pool-file PATH (a
 * capture into a wl_shm pool of that file: refused on FUSE).
 *
 * Virtual keyboards' keymaps (hostile_keymap.c): keymap-short,
 * keymap-unterminated (served), keymap-pipe, keymap-format, keymap-huge
 * [BYTES], keymap-includes N, keymap-reload N (one keyboard's keymap
 * compiled N times), keymap-switch N (keys on two keyboards in turn),
 * keymap-flood N, hold-keymaps N (held), keymap-errors N (a keymap
 * making xkbcommon log 3 errors, served N times).
 *
 * Session 39: wake-semaphore (an EFD_SEMAPHORE server eventfd: refused by
 * create_ring), sparse-pool MIB (a pool never written, read whole through
 * PUT_IMAGE_POOL: until session 40 the compositor's reads allocated its
 * pages; held; sealed against writes since session 41, when create_pool
 * began to require it and sparse-pool-sealed, the sealed twin, went).
 *
 * Session 41: ring-holes N (N rings of 16 MiB whose PUT_IMAGE pixels were
 * never written, read in place by the compositor; held), clip-grid [N]
 * (a SET_CLIP whose union would be about 4 million boxes: must be refused
 * naming the limit; with N, N rings of it held if accepted).
 *
 * Session 42: clip-max N[:KIB] (N rings, each with a clip and a PRESENT
 * damage of 16,376 boxes, charged as the client's memory: the clips held,
 * or with KIB of pixmaps first refused at the memory limit naming it).
 *
 * Exit status: 0 when the compositor answered as the rule requires (the
 * expected protocol error, a refused mapping, or simply staying alive), 1
 * otherwise; 2 for usage errors. It prints what it saw. The protocol error
 * message itself is printed by libwayland on stderr ("... error N: ...").
 */
#include "tests/tools/hostile/hostile.h"

/* A hostile client never tears anything down (and dies by SIGKILL or a
 * protocol error on purpose): in sanitizer builds, no leak report for it. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

static int run_accounting_case(struct hostile *h, const char *name, const char *arg, bool *handled);

static int run_new_case(struct hostile *h, const char *name, const char *arg, bool *handled)
{
	*handled = true;
	double secs = arg ? atof(arg) : 5;
	if (strncmp(name, "op:", 3) == 0) {
		return hostile_op_case(h, name + 3);
	} else if (strcmp(name, "header-scribble") == 0) {
		return case_header_scribble(h);
	} else if (strcmp(name, "foreign-target") == 0 || strcmp(name, "foreign-present") == 0) {
		return case_foreign(h, name, arg ? (uint32_t)strtoul(arg, NULL, 0) : 1);
	} else if (strcmp(name, "ring-flood") == 0) {
		return case_ring_flood(h);
	} else if (strcmp(name, "pool-flood") == 0) {
		return case_pool_flood(h);
	} else if (strcmp(name, "canvas-huge") == 0) {
		return case_canvas_huge(h);
	} else if (strcmp(name, "canvas-grow") == 0) {
		return case_canvas_grow(h);
	} else if (strcmp(name, "memory-rings") == 0) {
		return case_memory_rings(h);
	} else if (strcmp(name, "drain-stall") == 0) {
		return case_drain_stall(h);
	} else if (strcmp(name, "hold-memory") == 0) {
		return case_hold_memory(h, arg ? atoi(arg) : 1);
	} else if (strncmp(name, "pool-", 5) == 0 && strcmp(name, "pool-offset-overflow") != 0) {
		return case_pool(h, name);
	} else if (strcmp(name, "pixmaps-10k") == 0) {
		return case_pixmaps_10k(h);
	} else if (strcmp(name, "no-read") == 0) {
		return case_no_read(h, secs);
	} else if (strcmp(name, "keymap-no-read") == 0) {
		return case_keymap_no_read(h, arg ? atoi(arg) : 1000);
	} else if (strcmp(name, "keymap-read") == 0) {
		return case_keymap_read(h, arg ? atoi(arg) : 20);
	} else if (strcmp(name, "keymaps-idle") == 0) {
		return case_keymaps_idle(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "ring-full") == 0) {
		return case_ring_full(h, secs, 1024);
	} else if (strcmp(name, "big-fill") == 0) {
		return case_ring_full(h, secs, 4096);
	} else if (strcmp(name, "sync-probe") == 0) {
		return case_sync_probe(h, secs);
	} else if (strcmp(name, "drain-attack") == 0) {
		return case_drain_attack(h, secs);
	} else if (strcmp(name, "split-around-request") == 0) {
		return case_split_around_request(h);
	} else if (strcmp(name, "submit-shared-ring") == 0) {
		return case_submit_shared_ring(h);
	} else if (strcmp(name, "present-split") == 0) {
		return case_present_split(h);
	} else if (strcmp(name, "present-attack") == 0) {
		return case_present_attack(h, secs);
	} else if (strcmp(name, "present-recanvas") == 0) {
		return case_present_recanvas(h, arg ? atoi(arg) : 50);
	} else if (strcmp(name, "present-each") == 0) {
		return case_present_each(h, arg ? atoi(arg) : 50);
	} else if (strcmp(name, "park-fds") == 0) {
		return case_park_fds(h, arg ? atoi(arg) : 1000);
	} else if (strcmp(name, "hold-parked") == 0) {
		return case_hold_parked(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "connections") == 0 || strcmp(name, "hold-connections") == 0) {
		return case_connections(h, arg ? atoi(arg) : 100, name[0] == 'h');
	} else if (strcmp(name, "resize-stack") == 0) {
		return case_pool_resize_stack(h, arg ? atoi(arg) : 60);
	} else if (strcmp(name, "hold-memory-conns") == 0) {
		return case_hold_memory_conns(h, arg ? atoi(arg) : 2);
	} else if (strcmp(name, "shm-pool-flood") == 0) {
		return case_shm_pool_flood(h);
	} else if (strcmp(name, "hold-shm-buffers") == 0) {
		return case_hold_shm_buffers(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "hold-address") == 0) {
		return case_hold_address(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "address-flood") == 0) {
		return case_address_flood(h);
	} else if (strcmp(name, "hold-fds") == 0) {
		return case_hold_fds(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "echo-probe") == 0 || strcmp(name, "echo-probe-v") == 0) {
		const char *iv = getenv("SMT_ECHO_INTERVAL_MS");
		return case_echo_probe(h, secs, iv ? atoi(iv) : 10, name[10] == '-');
	} else if (strcmp(name, "giant-geometry") == 0) {
		return case_giant_geometry(h);
	} else if (strcmp(name, "head-backwards") == 0) {
		return case_head_backwards(h);
	} else if (strcmp(name, "head-huge") == 0) {
		return case_head_huge(h);
	} else if (strcmp(name, "wake-full") == 0) {
		return case_wake_full(h);
	} else if (strcmp(name, "wake-steal") == 0) {
		return case_wake_steal(h, arg ? atof(arg) : 2);
	} else if (strcmp(name, "wake-semaphore") == 0) {
		return case_wake_semaphore(h);
	} else if (strcmp(name, "fd-kinds-pool") == 0) {
		return case_pool_fd_kinds();
	} else if (strcmp(name, "sparse-pool") == 0) {
		return case_pool_holes(h, arg ? atoi(arg) : 64);
	} else if (strcmp(name, "ring-holes") == 0) {
		return case_ring_holes(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "clip-grid") == 0) {
		return case_clip_grid(h, arg ? atoi(arg) : 1, arg != NULL);
	} else if (strcmp(name, "clip-max") == 0) {
		/* "RINGS" or "RINGS:BALLAST_KIB" */
		const char *colon = arg ? strchr(arg, ':') : NULL;
		return case_clip_max(
				h, arg ? atoi(arg) : 8, colon ? strtoull(colon + 1, NULL, 10) : 0);
	}
	return run_accounting_case(h, name, arg, handled);
}

static int run_accounting_case(struct hostile *h, const char *name, const char *arg, bool *handled)
{
	*handled = true;
	if (strcmp(name, "hold-pixmaps") == 0) {
		return case_hold_pixmaps(h, arg);
	} else if (strcmp(name, "hold-top-id") == 0) {
		return case_hold_top_id(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "sparse-ids") == 0) {
		return case_sparse_ids(h);
	} else if (strcmp(name, "canvas-flood") == 0) {
		return case_canvas_flood(h, arg ? atoi(arg) : 52000);
	} else if (strcmp(name, "surface-flood") == 0) {
		return case_surface_flood(h, arg ? atoi(arg) : 100000);
	} else if (strcmp(name, "region-flood") == 0) {
		return case_region_flood(h, arg ? atoi(arg) : 1000000);
	} else if (strcmp(name, "get_canvas-ordered") == 0 ||
			strcmp(name, "create_pool-ordered") == 0) {
		return case_ordered_flood(h, name);
	} else if (strcmp(name, "canvas-surface-gone") == 0) {
		return case_canvas_surface_gone(h);
	} else if (strcmp(name, "pixmap-churn") == 0) {
		return case_pixmap_churn(h);
	} else if (strcmp(name, "trip-on-line") == 0) {
		return case_trip_on_line(h);
	} else if (strncmp(name, "life:", 5) == 0) {
		return hostile_lifecycle_case(h, name + 5, arg);
	}
	*handled = false;
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "--list-ops") == 0) {
		hostile_list_ops();
		return 0;
	}
	if (argc < 2 || argc > 4) {
		fputs("usage: smt-hostile CASE [ARG [ARG2]] | --list-ops\n", stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct hostile h = { .status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1 };
	if (!hostile_connect(&h)) {
		return 1;
	}
	if (strcmp(argv[1], "hold-objects") == 0 && argc >= 3) {
		return case_hold_objects(&h, argv[2], argc == 4 ? atoi(argv[3]) : 1000);
	}
	bool handled;
	int rc = hostile_core_case(&h, argv[1], argc >= 3 ? argv[2] : NULL,
			argc == 4 ? argv[3] : NULL, &handled);
	if (handled) {
		return rc;
	}
	rc = hostile_keymap_case(&h, argv[1], argc >= 3 ? argv[2] : NULL, &handled);
	if (handled) {
		return rc;
	}
	rc = run_new_case(&h, argv[1], argc >= 3 ? argv[2] : NULL, &handled);
	return handled ? rc : hostile_framing_case(&h, argv[1]);
}
