/*
 * smtwc configuration: defaults, parsing of the INI-like config file, lookups.
 *
 * Pure C (libc + xkbcommon only, no wlroots), so unit tests link it alone.
 * The file format is described in docs/config.md.
 */
#ifndef SMTWC_CONFIG_H
#define SMTWC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <xkbcommon/xkbcommon.h>

#include "compositor/sched/sched_settings.h"

/* Lines longer than this (excluding the newline) are rejected. */
#define SMTWC_CONFIG_MAX_LINE 4096
/* Files larger than this are rejected as a whole. */
#define SMTWC_CONFIG_MAX_FILE_SIZE (1024 * 1024)
/* At most this many error messages are printed per load (all are counted). */
#define SMTWC_CONFIG_MAX_MESSAGES 100

/* Same values as wlroots' enum wlr_keyboard_modifier. */
enum smtwc_modifier {
	SMTWC_MOD_SHIFT = 1,
	SMTWC_MOD_CAPS = 2,
	SMTWC_MOD_CTRL = 4,
	SMTWC_MOD_ALT = 8,
	SMTWC_MOD_MOD2 = 16, /* usually Num Lock */
	SMTWC_MOD_MOD3 = 32,
	SMTWC_MOD_LOGO = 64,
	SMTWC_MOD_MOD5 = 128,
};

/* Modifiers ignored when matching bindings (Caps Lock, Num Lock). */
#define SMTWC_MOD_IGNORED ((uint32_t)(SMTWC_MOD_CAPS | SMTWC_MOD_MOD2))

enum smtwc_action_kind {
	SMTWC_ACTION_NONE = 0,      /* binding disabled ("none") */
	SMTWC_ACTION_EXEC,          /* run binding->command via /bin/sh -c */
	SMTWC_ACTION_EXEC_TERMINAL, /* run the [general] terminal command */
	SMTWC_ACTION_CLOSE,
	SMTWC_ACTION_CYCLE,
	SMTWC_ACTION_QUIT,
	SMTWC_ACTION_MAXIMIZE,
	SMTWC_ACTION_FULLSCREEN,
	SMTWC_ACTION_MINIMIZE,
};

/* Same values as enum wl_output_transform. */
enum smtwc_transform {
	SMTWC_TRANSFORM_NORMAL = 0,
	SMTWC_TRANSFORM_90 = 1,
	SMTWC_TRANSFORM_180 = 2,
	SMTWC_TRANSFORM_270 = 3,
	SMTWC_TRANSFORM_FLIPPED = 4,
	SMTWC_TRANSFORM_FLIPPED_90 = 5,
	SMTWC_TRANSFORM_FLIPPED_180 = 6,
	SMTWC_TRANSFORM_FLIPPED_270 = 7,
};

struct smtwc_binding {
	/* Explicit modifiers (enum smtwc_modifier bits, never CAPS or MOD2). */
	uint32_t modifiers;
	/* True if the combo contains "Mod": the [general] modifier is added at
	 * lookup time, so changing `modifier` affects every such binding. Use
	 * smtwc_binding_modifiers() for the effective set. */
	bool uses_mod;
	xkb_keysym_t keysym; /* lower-case (xkb_keysym_to_lower) */
	enum smtwc_action_kind action;
	char *command; /* SMTWC_ACTION_EXEC only, else NULL */
};

/* The largest output mode and scale, from the config file or from a client
 * (wlr-output-management): a headless or nested output takes any mode it
 * is given and allocates its buffers for it (20000x20000 cost 1.5 GiB). */
#define SMTWC_OUTPUT_MAX_SIDE 16384
#define SMTWC_OUTPUT_MAX_SCALE 10
/* 1000 Hz. wlroots' headless output waits 1000000 / mHz ms a frame: above
 * 1000000 mHz that is 0, which disarms its frame timer, and no frame is
 * drawn again, whatever mode comes next. */
#define SMTWC_OUTPUT_MAX_REFRESH_MHZ 1000000

struct smtwc_output_config {
	char *name; /* output name, or "*" for every output */
	bool has_mode;
	int width, height;
	int refresh_mhz; /* 0: not given, pick the best refresh for width x height */
	bool has_scale;
	double scale;
	bool has_position;
	int x, y;
	bool has_enabled;
	bool enabled;
	bool has_transform;
	enum smtwc_transform transform;
};

struct smtwc_keyboard_config {
	/* xkb rule names; NULL lets xkbcommon use XKB_DEFAULT_* / built-ins. */
	char *rules, *model, *layout, *variant, *options;
	int repeat_rate;  /* Hz, 0 disables repeat */
	int repeat_delay; /* ms */
};

/* [scheduler]: the mode, and one int per row of SMT_SCHED_SETTINGS
 * (compositor/sched/sched_settings.h: keys, defaults, ranges). */
struct smtwc_scheduler_config {
	bool fifo; /* mode = fifo; false: fair */
	/* workers = N: threads that run rings' commands (0: the main thread
	 * runs them; read at start). Default: the CPUs the compositor may run
	 * on, minus the main thread's, at least one (config_default_workers). */
	int workers;
#define SMTWC_WORKERS_MAX 64
	/* worker-nice = N: the OS nice value of every worker thread (0-19;
	 * the main thread and clients keep theirs), so the main thread and
	 * interactive clients get a CPU before the flooders' workers. */
	int worker_nice;
#define SMTWC_WORKER_NICE_DEFAULT 5
#define SMTWC_WORKER_NICE_MAX 19
#define SMTWC_SCHED_FIELD_(key, cfg, def, min, max, check, param, unit) int cfg;
	SMT_SCHED_SETTINGS(SMTWC_SCHED_FIELD_)
#undef SMTWC_SCHED_FIELD_
};

/* [limits]: what one client (connection) may hold, and the compositor in
 * total (docs/protocol.md "Resource limits"). X(key, field, default, min,
 * max); the struct, the keys and the defaults all come from this list. */
#define SMTWC_LIMITS_SETTINGS(X)                                                            \
	/* descriptors held for the connection: its socket, rings (4 each),  */             \
	/* pools, fds in flight in libwayland's buffer                        */            \
	X("client-fds", client_fds, 96, 3, 1000000)                                         \
	/* of which in flight: received, not yet in a dispatched request */                 \
	X("client-fds-in-flight", client_fds_in_flight, 64, 28, 1000000)                    \
	/* fds sent to it that it has not read (in its socket: the kernel's) */             \
	X("client-fds-unread", client_fds_unread, 64, 28, 1000000)                          \
	X("client-rings", client_rings, 8, 1, 100000)                                       \
	X("client-pools", client_pools, 32, 1, 100000)                                      \
	/* canvases (each with its wl_surface; a disconnect frees them all) */              \
	X("client-canvases", client_canvases, 1024, 1, 1000000)                             \
	/* wl_surfaces, bare or under a canvas (libwayland destroys a gone  */              \
	/* client's all in one dispatch)                                    */              \
	X("client-surfaces", client_surfaces, 4096, 1, 1000000)                             \
	/* every Wayland object (libwayland destroys a gone client's all at */              \
	/* once; a million wl_regions held 180 MiB)                           */            \
	X("client-objects", client_objects, 16384, 16, 100000000)                           \
	/* pixmaps and canvases together */                                                 \
	X("client-memory-mib", client_memory_mib, 256, 1, 1048576)                          \
	/* mappings of client memfds (rings, pools, wl_shm pools) and ring pages, */        \
	/* and their address space                                                 */       \
	X("client-mappings", client_mappings, 512, 2, 1000000)                              \
	X("client-address-space-mib", client_address_space_mib, 16384, 1, 1u << 30)         \
	/* every connection of one process together (SO_PEERCRED pid) */                    \
	X("process-connections", process_connections, 16, 1, 100000)                        \
	X("process-fds", process_fds, 192, 3, 1000000)                                      \
	X("process-memory-mib", process_memory_mib, 512, 1, 1048576)                        \
	X("process-mappings", process_mappings, 1024, 2, 1000000)                           \
	X("process-address-space-mib", process_address_space_mib, 32768, 1, 1u << 30)       \
	X("process-canvases", process_canvases, 2048, 1, 1000000)                           \
	X("process-surfaces", process_surfaces, 4096, 1, 1000000)                           \
	X("process-objects", process_objects, 16384, 16, 100000000)                         \
	/* every process of one uid together */                                             \
	X("uid-connections", uid_connections, 256, 1, 1000000)                              \
	/* three quarters of each total: the rest is for other uids (every */               \
	/* desktop client shares one; the first-window reserves hold here too) */           \
	X("uid-fds", uid_fds, 16384, 3, 1000000)                                            \
	X("uid-memory-mib", uid_memory_mib, 1536, 1, 1048576)                               \
	X("uid-mappings", uid_mappings, 12288, 2, 1000000)                                  \
	X("uid-address-space-mib", uid_address_space_mib, 3145728, 1, 1u << 30)             \
	X("uid-canvases", uid_canvases, 4096, 1, 1000000)                                   \
	X("uid-surfaces", uid_surfaces, 8192, 1, 1000000)                                   \
	X("uid-objects", uid_objects, 32768, 16, 100000000)                                 \
	/* every client together */                                                         \
	X("total-connections", total_connections, 1024, 1, 1000000)                         \
	X("total-memory-mib", total_memory_mib, 2048, 1, 1048576)                           \
	X("total-mappings", total_mappings, 16384, 2, 1000000)                              \
	X("total-address-space-mib", total_address_space_mib, 4194304, 1, 1u << 30)         \
	/* of the totals, kept for processes that hold no more than this */                 \
	/* (a new client's first window): memory and address space in MiB, */               \
	/* fds and mappings in number                                      */               \
	X("first-window-reserve-mib", first_window_reserve_mib, 64, 0, 1048576)             \
	X("first-window-reserve-fds", first_window_reserve_fds, 16, 0, 1000000)             \
	/* of a uid's surfaces and canvases, kept for its processes that hold */            \
	/* no more than this                                                  */            \
	X("first-window-reserve-surfaces", first_window_reserve_surfaces, 64, 0, 1000000)   \
	X("first-window-reserve-objects", first_window_reserve_objects, 1024, 0, 100000000) \
	/* fds kept free below RLIMIT_NOFILE */                                             \
	X("fd-headroom", fd_headroom, 256, 16, 1000000)                                     \
	/* what wlroots keeps for core requests, per object (core_request_limits.h): */     \
	/* MIME types offered on one data source (wl_data_source, primary        */         \
	/* selection, data control), in number and in bytes                      */         \
	X("source-mime-types", source_mime_types, 256, 1, 1000000)                          \
	X("source-mime-bytes", source_mime_bytes, 65536, 256, 1u << 30)                     \
	/* damage rects a surface collects before a commit; past it the damage */           \
	/* becomes its bounding box (0: never)                                  */          \
	X("surface-damage-rects", surface_damage_rects, 64, 0, 1000000)                     \
	/* rectangles of one wl_region                                          */          \
	X("region-rects", region_rects, 1024, 1, 1000000)                                   \
	/* commits of a synchronized subsurface waiting for its parent's        */          \
	X("surface-cached-commits", surface_cached_commits, 256, 1, 1000000)                \
	/* frame callbacks asked on a surface before its commit; committed ones */          \
	/* past it are answered at once                                         */          \
	X("surface-frame-callbacks", surface_frame_callbacks, 64, 1, 1000000)               \
	/* idle inhibitors of one connection (input/idle.c)                     */          \
	X("client-idle-inhibitors", client_idle_inhibitors, 16, 1, 1000000)                 \
	/* screencopy frames with a copy asked, not yet destroyed            */             \
	X("client-screencopy-copies", client_screencopy_copies, 16, 1, 1000000)             \
	/* screencopy frames copied at one output frame, all clients together, */           \
	/* and as many whole outputs' bytes; the rest wait for later frames,   */           \
	/* served round robin by uid, then connection (output/screencopy_budget.h) */       \
	X("frame-screencopy-copies", frame_screencopy_copies, 1, 1, 1000)                   \
	/* virtual keyboards' keymaps (ring/keymap_limits.h): bytes of one    */            \
	/* keymap's text, files its include statements name, and keyboards    */            \
	/* with a keymap on one connection                                    */            \
	X("keymap-bytes", keymap_bytes, 262144, 4096, 1 << 26)                              \
	X("keymap-includes", keymap_includes, 16, 0, 100000)                                \
	X("client-keymaps", client_keymaps, 8, 1, 1000000)                                  \
	/* milliseconds a second one uid's keymaps may keep the loop compiling */           \
	X("keymap-compile-ms", keymap_compile_ms, 50, 1, 1000)                              \
	/* times a second one uid's virtual keyboards may become the seat's  */             \
	/* keyboard (each sends a keymap fd to every client)                  */            \
	X("keyboard-switches", keyboard_switches, 32, 1, 100000)                            \
	/* X clients (Xwayland's connections, told apart by their XIDs' client */           \
	/* bits; xwayland-glue/wm/wm_window_budget.h): top-level windows the    */          \
	/* window manager tracks for one, and for all together past each one's */           \
	/* first x11-first-windows; past either its new windows are left alone */           \
	X("x11-client-windows", x11_client_windows, 1024, 1, 1000000)                       \
	X("x11-windows", x11_windows, 8192, 1, 10000000)                                    \
	X("x11-first-windows", x11_first_windows, 32, 0, 1000000)                           \
	/* Wayland selections being sent to one X client at once, and to all */             \
	/* together (each a pipe, up to 64 KiB, and an fd sent to the Wayland */            \
	/* source: keep it below client-fds-unread; wm_selection_budget.h);   */            \
	/* past either a request is answered "refused"                         */           \
	X("x11-client-selection-transfers", x11_client_selection_transfers, 8, 1, 100000)   \
	X("x11-selection-transfers", x11_selection_transfers, 32, 1, 1000000)               \
	/* pastes from one X client (the selection's owner) into Wayland     */             \
	/* clients under way at once (each holds one of the window manager's */             \
	/* 64 paste slots; wm_paste_pipe.h); past it a paste is refused       */            \
	X("x11-client-pastes", x11_client_pastes, 16, 1, 64)

struct smtwc_limits_config {
#define SMTWC_LIMITS_FIELD_(key, field, def, min, max) int field;
	SMTWC_LIMITS_SETTINGS(SMTWC_LIMITS_FIELD_)
#undef SMTWC_LIMITS_FIELD_
};

/* [xwayland]: Xwayland's own smart scheduler, passed to it as -schedInterval
 * and -schedMax when the compositor starts it (docs/x11.md "Scheduling X
 * clients"). X(key, field, default, min, max), in ms. The interval is the
 * slice an X client may keep the server while others wait (Xwayland's own
 * default: 5); the defaults come from tests/bench/x11/interactive.py. */
#define SMTWC_XWAYLAND_SETTINGS(X)                                                  \
	X("sched-interval-ms", sched_interval_ms, 5, 1, 1000)                       \
	/* the longest slice a lone busy client grows to (Xwayland's default) */    \
	X("sched-max-ms", sched_max_ms, 15, 1, 1000)                                \
	/* the input boost's credit per grant, in us (0: off; the server half's  */ \
	/* input_boost.c; must stay <= INPUT_BOOST_MAX_US) */                       \
	X("input-boost-us", input_boost_us, 4000, 0, 100000)                        \
	/* a client whose X server time lately is below this % of the time */       \
	/* it had nothing waiting gets a grant when it has requests (0: off) */     \
	X("light-boost-pct", light_boost_pct, 25, 0, 100)                           \
	/* while a client is light and active, other clients' reads stop this */    \
	/* many bytes past the request under way, and a light client's waiting */   \
	/* requests are granted at others' reads (0: off; <= 16384); 2048 since */  \
	/* session 29: 256 cost socket flooders ~9% of the X server per request */  \
	X("light-read-cap", light_read_cap, 2048, 0, 16384)

struct smtwc_xwayland_config {
#define SMTWC_XWAYLAND_FIELD_(key, field, def, min, max) int field;
	SMTWC_XWAYLAND_SETTINGS(SMTWC_XWAYLAND_FIELD_)
#undef SMTWC_XWAYLAND_FIELD_
};

struct smtwc_config {
	/* [general] */
	uint32_t modifier;  /* exactly one SMTWC_MOD_* bit: drags and "Mod" */
	char *terminal;     /* never NULL after init */
	char *cursor_theme; /* NULL: default theme ($XCURSOR_THEME) */
	int cursor_size;
	uint32_t background; /* 0xRRGGBB */
	int border_width;
	uint32_t focused_border, unfocused_border; /* 0xRRGGBB */
	/* Title bars of server-side-decorated windows. */
	char *title_font;                        /* Pango font description; never NULL after init */
	int title_height;                        /* pixels; 0: the font's height plus padding */
	uint32_t focused_title, unfocused_title; /* background */
	uint32_t focused_title_text, unfocused_title_text; /* 0xRRGGBB */

	struct smtwc_keyboard_config keyboard;

	/* [bindings]: later entries take precedence over earlier ones. */
	struct smtwc_binding *bindings;
	size_t binding_count, binding_capacity;

	/* [startup]: shell commands, in order. */
	char **startup;
	size_t startup_count, startup_capacity;

	/* [output NAME] sections, in order of first appearance. */
	struct smtwc_output_config *outputs;
	size_t output_count, output_capacity;

	struct smtwc_scheduler_config scheduler;
	struct smtwc_limits_config limits;
	struct smtwc_xwayland_config xwayland;
};

/* Fills cfg with the defaults. Returns false on allocation failure (cfg is
 * then left safe to pass to smtwc_config_finish). */
bool smtwc_config_init(struct smtwc_config *cfg);

/* Frees everything cfg owns and zeroes it. Safe to call twice. */
void smtwc_config_finish(struct smtwc_config *cfg);

/*
 * Applies the file at path on top of cfg. Each bad line is reported to errors
 * (if not NULL) as "path:line: problem" and skipped; the settings it would
 * have changed keep their previous values. A missing file is not an error.
 * An unreadable or oversized file is one error and changes nothing.
 * Returns the number of errors.
 */
int smtwc_config_load_file(struct smtwc_config *cfg, const char *path, FILE *errors);

/* Same, for text held in memory; name (may be NULL) is used in messages. */
int smtwc_config_load_string(
		struct smtwc_config *cfg, const char *name, const char *text, FILE *errors);

/* $XDG_CONFIG_HOME/smtwc/config, else $HOME/.config/smtwc/config.
 * malloc'd; NULL if neither variable is usable or on allocation failure. */
char *smtwc_config_default_path(void);

/* The binding for a key press, or NULL (also if the combo is bound to
 * "none"). Caps Lock and Num Lock are ignored; keysym is compared
 * case-insensitively. */
const struct smtwc_binding *smtwc_config_find_binding(
		const struct smtwc_config *cfg, uint32_t modifiers, xkb_keysym_t keysym);

/* Effective modifiers of a binding (explicit ones plus cfg->modifier if it
 * uses "Mod"). */
uint32_t smtwc_binding_modifiers(
		const struct smtwc_config *cfg, const struct smtwc_binding *binding);

/* The shell command a binding runs: binding->command for EXEC, the terminal
 * for EXEC_TERMINAL, NULL for every other action. */
const char *smtwc_binding_command(
		const struct smtwc_config *cfg, const struct smtwc_binding *binding);

/* The section for an output: exact name, else "*", else NULL. */
const struct smtwc_output_config *smtwc_config_find_output(
		const struct smtwc_config *cfg, const char *name);

/* The name used in the config file ("exec", "close", ..., "none"). */
const char *smtwc_action_name(enum smtwc_action_kind action);

/* 0xRRGGBB to float RGBA components in [0, 1], alpha 1. */
void smtwc_color_to_rgba(uint32_t rgb, float rgba[4]);

#endif
