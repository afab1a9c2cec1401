/*
 * Virtual keyboards' keymaps checked, copied, bounded and charged from a
 * protocol logger that runs before wlroots' handler (keymap_limits.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include "common/monotonic_clock.h"
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/keymap_limits.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/waiting_filesystem.h"

/* wl_keyboard.keymap_format.xkb_v1: the only format wlroots compiles. */
#define KEYMAP_FORMAT_XKB_V1 1u

/* What a keyboard's keymap holds for each byte of its text as wlroots
 * keeps it (xkb_keymap_get_as_string's): the text, its memfd's pages and
 * the compiled keymap (Debian 12's libxkbcommon, measured by hand with
 * mallinfo2 around xkb_keymap_new_from_string: 1.9 bytes of heap per byte
 * of the text it gives back for a us keymap (64 KB of text), five layouts
 * (78 KB) and 1,000 or 3,000 keys (155, 419 KB)), rounded up; and what
 * each keyboard holds whatever its keymap (the xkb state, the records). */
#define KEYMAP_BYTES_PER_TEXT_BYTE 4u
#define KEYMAP_FIXED_BYTES 16384u

/* A uid's keymaps may keep the main loop compiling keymap-compile-ms
 * milliseconds (of its CPU time) a second, at most that much at once: a compile is about
 * 1 ms for a us keymap and 0.33 ms more for each include of "complete"
 * (measured by hand), so wtype or a virtual keyboard never meets it, and
 * an attacker's keymaps (each within keymap-bytes and keymap-includes)
 * cost others at most that share of the loop. */
struct uid_budget {
	struct wl_list link; /* km.budgets or km.switches */
	uid_t uid;
	int64_t left;   /* ns of compiling, or keyboard switches */
	uint64_t at_ns; /* when left was last refilled */
};

/* Keyboards with a keymap on one connection. */
struct client_keymaps {
	struct wl_listener client_destroy;
	int held;
	int refs; /* the client's, and each keyboard's: keyboards outlive
		   * the client's destroy signal */
};

/* What one virtual keyboard has had charged, given back when it goes. */
struct keyboard_charge {
	struct wl_listener resource_destroy;
	struct wl_listener keymap; /* wlroots compiled a keymap for it */
	struct smtwc_client_usage *usage;
	struct client_keymaps *keymaps;
	uint64_t memory;
	bool fd_charged; /* its keymap's memfd */
};

static struct {
	struct smtwc_transport *transport;
	struct wl_protocol_logger *logger;
	int null_fd;             /* /dev/null: what a refused keymap's fd becomes */
	struct wl_list budgets;  /* uid_budget.link: uids that compiled lately */
	struct wl_list switches; /* uid_budget.link: uids that switched lately */
	/* The keymap wlroots' handler is compiling: charged to its uid when
	 * the keyboard announces it, or when its client goes (a keymap that
	 * does not compile ends the client), or at the next keymap request. */
	struct {
		struct uid_budget *budget;
		struct wl_client *client;
		uint64_t start_cpu_ns; /* loop_cpu_now_ns() */
	} compiling;
} km = { .null_fd = -1 };

static const char *const request_name = "zwp_virtual_keyboard_v1.keymap";

static const struct smtwc_limits_config *config(void)
{
	return &km.transport->server->config.limits;
}

static uint64_t keymap_memory(uint64_t text_bytes)
{
	return KEYMAP_FIXED_BYTES + KEYMAP_BYTES_PER_TEXT_BYTE * text_bytes;
}

/* How many files the include statements of a keymap's text name: a merge
 * mode keyword (any case, as xkb reads it) followed by a string, each '+'
 * or '|' in the string one file more. Comments and strings are not told
 * apart: never fewer than xkb reads. */
static uint64_t include_files(const char *text, size_t len)
{
	static const char *const words[] = { "include", "augment", "override", "replace",
		"alternate" };
	uint64_t files = 0;
	for (size_t i = 0; i < len; i++) {
		if (i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) {
			continue;
		}
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t n = strlen(words[w]);
			if (len - i < n || strncasecmp(text + i, words[w], n) != 0) {
				continue;
			}
			size_t j = i + n;
			while (j < len && isspace((unsigned char)text[j])) {
				j++;
			}
			if (j == len || text[j] != '"') {
				break;
			}
			files++;
			for (j++; j < len && text[j] != '"'; j++) {
				files += text[j] == '+' || text[j] == '|';
			}
			break;
		}
	}
	return files;
}

/* The client's keymap (`size` bytes of `fd`) copied into a memfd of ours
 * with a NUL inside the size, its include statements' files counted.
 * -1 and `why` said if it cannot be. */
static int copy_keymap(int fd, uint32_t size, uint64_t *includes, char *why, size_t why_len)
{
	struct stat st;
	long fs_type;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "the keymap's fd is not a regular file");
		return -1;
	}
	if (fd_on_waiting_filesystem(fd, &fs_type)) {
		snprintf(why, why_len,
				"the keymap's file is on a filesystem whose reads can wait "
				"(type 0x%lx)",
				(unsigned long)fs_type);
		return -1;
	}
	if ((uint64_t)st.st_size < size) {
		snprintf(why, why_len, "the keymap's file holds %lld bytes, %u declared",
				(long long)st.st_size, size);
		return -1;
	}
	int copy = memfd_create("smtwc-keymap", MFD_CLOEXEC);
	char *text = MAP_FAILED;
	if (copy >= 0 && ftruncate(copy, size) == 0) {
		text = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, copy, 0);
	}
	if (text == MAP_FAILED) {
		snprintf(why, why_len, "out of memory for a copy of %u bytes", size);
		if (copy >= 0) {
			close(copy);
		}
		return -1;
	}
	/* pread, not a mapping: a file the client shrinks meanwhile gives a
	 * short read here, where a mapping would give a SIGBUS. */
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, text + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		done += (size_t)n;
	}
	if (done < size) {
		snprintf(why, why_len, "the keymap's file gave %zu of %u bytes", done, size);
		munmap(text, size);
		close(copy);
		return -1;
	}
	/* xkb runs strlen over it: the NUL must be inside the mapping. */
	if (memchr(text, '\0', size) == NULL) {
		text[size - 1] = '\0';
	}
	*includes = include_files(text, strlen(text));
	munmap(text, size);
	return copy;
}

/* The uid's budget in `list`, `cap` at most and refilled by `cap` a
 * second, brought to now (NULL: out of memory). Budgets full again are
 * dropped on the way: a list holds the uids that spent in the last
 * second or so. */
static struct uid_budget *budget_of(struct wl_list *list, int64_t cap, uid_t uid, uint64_t now)
{
	struct uid_budget *b, *tmp, *found = NULL;
	wl_list_for_each_safe (b, tmp, list, link) {
		uint64_t elapsed = now - b->at_ns;
		int64_t refill = elapsed >= 1000000000u ?
				cap :
				(int64_t)(elapsed * (uint64_t)cap / 1000000000u);
		b->left = b->left + refill > cap ? cap : b->left + refill;
		b->at_ns = now;
		if (b->uid == uid) {
			found = b;
		} else if (b->left == cap && km.compiling.budget != b) {
			wl_list_remove(&b->link);
			free(b);
		}
	}
	if (found == NULL) {
		found = calloc(1, sizeof(*found));
		if (found != NULL) {
			found->uid = uid;
			found->left = cap;
			found->at_ns = now;
			wl_list_insert(list, &found->link);
		}
	}
	return found;
}

static void budgets_free(struct wl_list *list)
{
	struct uid_budget *b, *tmp;
	wl_list_for_each_safe (b, tmp, list, link) {
		wl_list_remove(&b->link);
		free(b);
	}
}

/* The main thread's CPU time: what a compile cost the loop. Wall time
 * also counted the time the thread waited for a CPU: on a loaded machine
 * (two busy loops, the ASan build) the second wtype of a test, a us
 * keymap, was refused at keymap-compile-ms=50 (session 34). */
static uint64_t loop_cpu_now_ns(void)
{
	uint64_t ns = thread_cpu_now_ns();
	return ns != 0 ? ns : monotonic_now_ns();
}

/* The compile under way is over: its time comes off its uid's budget. */
static void compiled(void)
{
	if (km.compiling.budget != NULL) {
		km.compiling.budget->left -= (int64_t)(loop_cpu_now_ns() -
				km.compiling.start_cpu_ns);
	}
	km.compiling.budget = NULL;
	km.compiling.client = NULL;
}

static void keymaps_unref(struct client_keymaps *ck)
{
	if (--ck->refs == 0) {
		free(ck);
	}
}

static void handle_keymaps_client_destroy(struct wl_listener *listener, void *data)
{
	struct client_keymaps *ck = wl_container_of(listener, ck, client_destroy);
	if (km.compiling.client == data) {
		compiled(); /* it did not compile: the client is ended for it */
	}
	wl_list_remove(&ck->client_destroy.link);
	keymaps_unref(ck);
}

static struct client_keymaps *client_keymaps_of(struct wl_client *client)
{
	struct wl_listener *l = wl_client_get_destroy_listener(
			client, handle_keymaps_client_destroy);
	if (l != NULL) {
		struct client_keymaps *ck = wl_container_of(l, ck, client_destroy);
		return ck;
	}
	struct client_keymaps *ck = calloc(1, sizeof(*ck));
	if (ck == NULL) {
		return NULL;
	}
	ck->refs = 1;
	ck->client_destroy.notify = handle_keymaps_client_destroy;
	wl_client_add_destroy_listener(client, &ck->client_destroy);
	return ck;
}

static void handle_resource_destroy(struct wl_listener *listener, void *data)
{
	struct keyboard_charge *kc = wl_container_of(listener, kc, resource_destroy);
	wl_list_remove(&kc->resource_destroy.link);
	wl_list_remove(&kc->keymap.link);
	client_usage_release(kc->usage, SMT_RES_MEMORY, kc->memory);
	if (kc->fd_charged) {
		client_usage_release(kc->usage, SMT_RES_FDS, 1);
	}
	kc->keymaps->held--;
	keymaps_unref(kc->keymaps);
	client_usage_unref(kc->usage);
	free(kc);
}

/* wlroots compiled the keymap (the keyboard's keymap signal, at the end of
 * wlr_keyboard_set_keymap): what it holds now is known exactly. */
static void handle_keymap(struct wl_listener *listener, void *data)
{
	struct keyboard_charge *kc = wl_container_of(listener, kc, keymap);
	struct wlr_keyboard *keyboard = data;
	if (km.compiling.budget != NULL && kc->usage->client == km.compiling.client) {
		compiled();
	}
	uint64_t now = keymap_memory(keyboard->keymap_size);
	if (now < kc->memory) {
		client_usage_release(kc->usage, SMT_RES_MEMORY, kc->memory - now);
	} else if (now > kc->memory) {
		smt_usage_charge_over_limits(&kc->usage->usage, SMT_RES_MEMORY, now - kc->memory);
	}
	kc->memory = now;
}

static bool usage_charge(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n, char *why,
		size_t why_len)
{
	if (cu->pid == getpid()) {
		smt_usage_charge_over_limits(&cu->usage, r, n);
		return true;
	}
	struct smt_usage_refusal refusal;
	if (!smt_usage_charge(&cu->usage, r, n, &refusal)) {
		smt_usage_describe(&refusal, why, why_len);
		return false;
	}
	return true;
}

/* The keyboard's record, made at its first keymap: one more keyboard with
 * a keymap on the connection, and its memfd's fd. NULL and `why` said when
 * refused (or `why` empty: no account to charge, out of memory). */
static struct keyboard_charge *keyboard_charge_of(struct wl_resource *resource,
		struct smtwc_client_usage *cu, char *why, size_t why_len)
{
	struct wl_listener *l = wl_resource_get_destroy_listener(resource, handle_resource_destroy);
	if (l != NULL) {
		struct keyboard_charge *kc = wl_container_of(l, kc, resource_destroy);
		return kc;
	}
	struct wlr_virtual_keyboard_v1 *vkb = wl_resource_get_user_data(resource);
	struct wl_client *client = wl_resource_get_client(resource);
	struct client_keymaps *ck = client_keymaps_of(client);
	if (vkb == NULL || ck == NULL) {
		return NULL;
	}
	int limit = config()->client_keymaps;
	if (ck->held >= limit && cu->pid != getpid()) {
		snprintf(why, why_len,
				"limit client-keymaps=%d reached: %d keyboards with a keymap, 1 more "
				"asked",
				limit, ck->held);
		return NULL;
	}
	struct keyboard_charge *kc = calloc(1, sizeof(*kc));
	if (kc == NULL) {
		return NULL;
	}
	if (!usage_charge(cu, SMT_RES_FDS, 1, why, why_len)) {
		free(kc);
		return NULL;
	}
	kc->fd_charged = true;
	kc->usage = client_usage_hold(cu);
	kc->keymaps = ck;
	ck->refs++;
	ck->held++;
	kc->resource_destroy.notify = handle_resource_destroy;
	wl_resource_add_destroy_listener(resource, &kc->resource_destroy);
	kc->keymap.notify = handle_keymap;
	wl_signal_add(&vkb->input_device.keyboard->events.keymap, &kc->keymap);
	return kc;
}

/* Checks, copies and charges one keymap request; `why` said if refused. */
static int accept_keymap(const struct wl_protocol_logger_message *m, char *why, size_t why_len)
{
	struct wl_resource *resource = m->resource;
	uint32_t format = m->arguments[0].u;
	int fd = m->arguments[1].h;
	uint32_t size = m->arguments[2].u;
	struct smtwc_client_usage *cu = client_usage_find(wl_resource_get_client(resource));
	bool own = cu != NULL && cu->pid == getpid();
	const struct smtwc_limits_config *c = config();
	if (format != KEYMAP_FORMAT_XKB_V1) {
		snprintf(why, why_len, "keymap format %u: only xkb_v1 (1) is read", format);
		return -1;
	}
	if (size == 0) {
		snprintf(why, why_len, "an empty keymap (size 0)");
		return -1;
	}
	/* (bounds on what is read and compiled hold for every connection) */
	if (size > (uint32_t)c->keymap_bytes) {
		snprintf(why, why_len, "limit keymap-bytes=%d reached: %u bytes declared",
				c->keymap_bytes, size);
		return -1;
	}
	uint64_t includes = 0;
	int copy = copy_keymap(fd, size, &includes, why, why_len);
	if (copy < 0) {
		return -1;
	}
	if (includes > (uint64_t)c->keymap_includes) {
		snprintf(why, why_len, "limit keymap-includes=%d reached: %llu files included",
				c->keymap_includes, (unsigned long long)includes);
		close(copy);
		return -1;
	}
	if (cu == NULL || cu->client == NULL) {
		return copy; /* a client without an account: safe, uncharged */
	}
	struct keyboard_charge *kc = keyboard_charge_of(resource, cu, why, why_len);
	if (kc == NULL) {
		if (why[0] == '\0') {
			return copy; /* out of memory for the record: uncharged */
		}
		close(copy);
		return -1;
	}
	/* Until wlroots compiles it, the declared text stands for it (an
	 * include's files are charged when the keymap is known). */
	uint64_t want = keymap_memory(size);
	if (want > kc->memory) {
		if (!usage_charge(cu, SMT_RES_MEMORY, want - kc->memory, why, why_len)) {
			close(copy);
			return -1;
		}
		kc->memory = want;
	}
	if (own) {
		return copy;
	}
	uint64_t now = monotonic_now_ns();
	struct uid_budget *budget = budget_of(
			&km.budgets, (int64_t)c->keymap_compile_ms * 1000000, cu->uid, now);
	if (budget != NULL && budget->left <= 0) {
		snprintf(why, why_len,
				"limit keymap-compile-ms=%d reached: the uid's keymaps took %lld ms "
				"more than their share",
				c->keymap_compile_ms, (long long)(-budget->left / 1000000));
		close(copy);
		return -1;
	}
	km.compiling.budget = budget;
	km.compiling.client = wl_resource_get_client(resource);
	km.compiling.start_cpu_ns = loop_cpu_now_ns();
	return copy;
}

/* zwp_virtual_keyboard_v1.key / modifiers on a keyboard that is not the
 * seat's: the seat's keyboard changes to it, and wlroots sends its keymap
 * (an fd) to every client's wl_keyboard, whatever keymap they had. Two
 * keyboards typed on in turn did that at every key: 10,000 keys in 16 ms,
 * and a client that did not read for those 16 ms was disconnected for 64
 * unread fds. A uid's virtual keyboards may become the seat's keyboard
 * keyboard-switches times a second, at most that many at once. */
static void check_switch(struct wl_resource *resource)
{
	struct wlr_virtual_keyboard_v1 *vkb = wl_resource_get_user_data(resource);
	if (vkb == NULL || !vkb->has_keymap ||
			km.transport->server->seat->keyboard_state.keyboard ==
					vkb->input_device.keyboard) {
		return; /* wlroots' own error, or no change */
	}
	struct wl_client *client = wl_resource_get_client(resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL || cu->pid == getpid()) {
		return;
	}
	int limit = config()->keyboard_switches;
	struct uid_budget *budget = budget_of(&km.switches, limit, cu->uid, monotonic_now_ns());
	if (budget == NULL) {
		return;
	}
	if (budget->left <= 0) {
		char why[160];
		snprintf(why, sizeof(why),
				"limit keyboard-switches=%d reached: the uid's keyboards became the "
				"seat's %d times in the last second, 1 more asked",
				limit, limit);
		client_usage_refuse_text(client, "zwp_virtual_keyboard_v1.key", why);
		return;
	}
	budget->left--;
}

static void handle_protocol_message(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST ||
			strcmp(wl_resource_get_class(m->resource), "zwp_virtual_keyboard_v1") !=
					0) {
		return;
	}
	if (strcmp(m->message->name, "key") == 0 || strcmp(m->message->name, "modifiers") == 0) {
		check_switch(m->resource);
		return;
	}
	if (strcmp(m->message->name, "keymap") != 0 || m->arguments_count < 3) {
		return;
	}
	int fd = m->arguments[1].h;
	char why[160] = "";
	compiled(); /* one that neither compiled nor ended its client */
	int copy = accept_keymap(m, why, sizeof(why));
	if (copy < 0) {
		client_usage_refuse_text(wl_resource_get_client(m->resource), request_name, why);
		/* The handler still runs: /dev/null cannot be mapped, so it
		 * fails at once, closes the fd and compiles nothing. */
		copy = km.null_fd;
	}
	/* The handler maps and compiles our copy, and closes it. dup3 keeps
	 * the fd's number (what the handler was given) and close-on-exec. */
	if (copy < 0 || dup3(copy, fd, O_CLOEXEC) < 0) {
		/* Nothing safe to put in place: the client's file is closed,
		 * so the handler's mapping fails. */
		close(fd);
	}
	if (copy >= 0 && copy != km.null_fd) {
		close(copy);
	}
}

void keymap_limits_init(struct smtwc_transport *transport)
{
	km.transport = transport;
	wl_list_init(&km.budgets);
	wl_list_init(&km.switches);
	km.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	km.logger = wl_display_add_protocol_logger(
			transport->server->display, handle_protocol_message, NULL);
}

void keymap_limits_finish(struct smtwc_transport *transport)
{
	if (km.logger != NULL) {
		wl_protocol_logger_destroy(km.logger);
		km.logger = NULL;
	}
	if (km.null_fd >= 0) {
		close(km.null_fd);
		km.null_fd = -1;
	}
	budgets_free(&km.budgets);
	budgets_free(&km.switches);
	km.compiling.budget = NULL;
	km.transport = NULL;
}
