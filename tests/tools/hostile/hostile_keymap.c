/*
 * Virtual keyboards' keymaps (compositor/ring/keymap_limits.h): files
 * shorter than declared, without a NUL, not files at all, too large, full
 * of include statements, and many keyboards each holding a keymap. Each
 * case either ends with wl_display's implementation error naming what was
 * refused (exit 0 when it does) or must be served (exit 0 then).
 */
#include "tests/tools/hostile/hostile.h"

/* zwp_virtual_keyboard_unstable_v1, described by hand: its XML is not in
 * Debian's wayland-protocols (wlroots carries its own copy). Requests in
 * the protocol's order: the manager's create_virtual_keyboard(seat, id);
 * the keyboard's keymap(format, fd, size), key, modifiers, destroy. */
static const struct wl_interface keyboard_interface;
static const struct wl_interface *create_types[] = { &wl_seat_interface, &keyboard_interface };
static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL };
static const struct wl_message manager_requests[] = {
	{ "create_virtual_keyboard", "on", create_types },
};
static const struct wl_interface manager_interface = {
	"zwp_virtual_keyboard_manager_v1",
	1,
	1,
	manager_requests,
	0,
	NULL,
};
static const struct wl_message keyboard_requests[] = {
	{ "keymap", "uhu", no_types },
	{ "key", "uuu", no_types },
	{ "modifiers", "uuuu", no_types },
	{ "destroy", "", no_types },
};
static const struct wl_interface keyboard_interface = {
	"zwp_virtual_keyboard_v1",
	1,
	4,
	keyboard_requests,
	0,
	NULL,
};
#define KEYBOARD_KEYMAP 0
#define KEYBOARD_MODIFIERS 2
#define FORMAT_XKB_V1 1u

static struct wl_proxy *manager;

static void handle_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	if (strcmp(interface, manager_interface.name) == 0) {
		manager = wl_registry_bind(registry, name, &manager_interface, 1);
	}
}

static void handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

static struct wl_proxy *new_keyboard(struct hostile *h)
{
	return wl_proxy_marshal_flags(manager, 0, &keyboard_interface, 1, 0, h->seat, NULL);
}

static void send_keymap(struct wl_proxy *keyboard, uint32_t format, int fd, uint32_t size)
{
	wl_proxy_marshal_flags(keyboard, KEYBOARD_KEYMAP, NULL, 1, 0, format, fd, size);
}

/* A keymap xkb compiles, with two includes (as wtype sends). */
static const char small_keymap[] =
		"xkb_keymap {\n"
		"xkb_keycodes \"(unnamed)\" { minimum = 8; maximum = 255; <K1> = 9; };\n"
		"xkb_types \"(unnamed)\" { include \"complete\" };\n"
		"xkb_compatibility \"(unnamed)\" { include \"complete\" };\n"
		"xkb_symbols \"(unnamed)\" { key <K1> {[a]}; };\n"
		"};\n";

/* A memfd of `size` bytes: `text` (its bytes, no NUL) and then `fill`. */
static int keymap_file(const char *text, size_t size, char fill)
{
	int fd = make_memfd(size, 0);
	char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("smt-hostile: mmap");
		exit(1);
	}
	memset(map, fill, size);
	size_t len = strlen(text);
	memcpy(map, text, len < size ? len : size);
	munmap(map, size);
	return fd;
}

/* The small keymap with its NUL. */
static int good_keymap(uint32_t *size)
{
	*size = sizeof(small_keymap);
	return keymap_file(small_keymap, sizeof(small_keymap), '\0');
}

static bool bind_manager(struct hostile *h)
{
	struct wl_registry *registry = wl_display_get_registry(h->display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	if (wl_display_roundtrip(h->display) < 0 || manager == NULL || h->seat == NULL) {
		fprintf(stderr, "smt-hostile: no virtual keyboard manager or seat\n");
		return false;
	}
	return true;
}

static int refused(struct hostile *h, const char *what)
{
	printf("%s: sent\n", what);
	return expect_error(h, &wl_display_interface, WL_DISPLAY_ERROR_IMPLEMENTATION) ? 0 : 1;
}

/* The keyboard is served: a modifiers request (refused by wlroots without
 * a keymap) and a round trip, answered without an error. */
static int served(struct hostile *h, struct wl_proxy *keyboard, const char *what)
{
	wl_proxy_marshal_flags(keyboard, KEYBOARD_MODIFIERS, NULL, 1, 0, 0u, 0u, 0u, 0u);
	if (wl_display_roundtrip(h->display) < 0) {
		printf("%s: NOT served (error %d)\n", what, wl_display_get_error(h->display));
		return 1;
	}
	printf("KEYMAP served: %s\n", what);
	return 0;
}

/* keymap-short: 4,096 bytes in the file, 8,192 declared (wlroots mapped
 * 8,192 and compiled: a SIGBUS in the compositor at the second page). */
static int keymap_short(struct hostile *h)
{
	int fd = keymap_file("xkb_keymap {", 4096, ' ');
	send_keymap(new_keyboard(h), FORMAT_XKB_V1, fd, 8192);
	close(fd);
	return refused(h, "keymap-short");
}

/* keymap-unterminated: a valid keymap padded with spaces to two whole
 * pages, no NUL anywhere (xkb's strlen ran past the mapping). Served. */
static int keymap_unterminated(struct hostile *h)
{
	int fd = keymap_file(small_keymap, 8192, ' ');
	struct wl_proxy *keyboard = new_keyboard(h);
	send_keymap(keyboard, FORMAT_XKB_V1, fd, 8192);
	close(fd);
	return served(h, keyboard, "a keymap without a NUL in two whole pages");
}

/* keymap-pipe: a pipe's read end with the keymap in it. */
static int keymap_pipe(struct hostile *h)
{
	int p[2];
	if (pipe(p) != 0 || write(p[1], small_keymap, sizeof(small_keymap)) < 0) {
		perror("smt-hostile: pipe");
		return 1;
	}
	send_keymap(new_keyboard(h), FORMAT_XKB_V1, p[0], sizeof(small_keymap));
	close(p[0]);
	return refused(h, "keymap-pipe");
}

/* keymap-format: the small keymap, format 0 (no keymap). */
static int keymap_format(struct hostile *h)
{
	uint32_t size;
	int fd = good_keymap(&size);
	send_keymap(new_keyboard(h), 0, fd, size);
	close(fd);
	return refused(h, "keymap-format");
}

/* keymap-huge BYTES: the small keymap padded with spaces to BYTES. */
static int keymap_huge(struct hostile *h, long bytes)
{
	int fd = keymap_file(small_keymap, (size_t)bytes, ' ');
	send_keymap(new_keyboard(h), FORMAT_XKB_V1, fd, (uint32_t)bytes);
	close(fd);
	return refused(h, "keymap-huge");
}

/* keymap-includes N: N include statements of "complete" in the types
 * (each a tree of files xkb reads and parses). */
static int keymap_includes(struct hostile *h, long n)
{
	size_t cap = 256 + (size_t)n * 24;
	char *text = malloc(cap);
	size_t len = (size_t)snprintf(text, cap, "xkb_keymap {\nxkb_types {");
	for (long i = 0; i < n; i++) {
		len += (size_t)snprintf(text + len, cap - len, " include \"complete\"");
	}
	len += (size_t)snprintf(text + len, cap - len, " };\n};\n");
	int fd = keymap_file(text, len + 1, '\0');
	free(text);
	send_keymap(new_keyboard(h), FORMAT_XKB_V1, fd, (uint32_t)(len + 1));
	close(fd);
	return refused(h, "keymap-includes");
}

/* keymap-reload N: one keyboard given a keymap naming 16 files in its
 * includes (within keymap-includes; a few ms of the compositor's loop
 * each) N times, a
 * round trip every 8: refused once the uid's keymaps took their share of
 * the loop (keymap-compile-ms). */
static int keymap_reload(struct hostile *h, long n)
{
	char text[1024];
	size_t len = (size_t)snprintf(text, sizeof(text),
			"xkb_keymap {\nxkb_keycodes { include \"evdev\" };\nxkb_types {");
	for (int i = 0; i < 12; i++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, " include \"complete\"");
	}
	len += (size_t)snprintf(text + len, sizeof(text) - len,
			" };\nxkb_compatibility { include \"complete\" };\n"
			"xkb_symbols { include \"pc+us\" };\n};\n");
	int fd = keymap_file(text, len + 1, '\0');
	struct wl_proxy *keyboard = new_keyboard(h);
	for (long i = 0; i < n; i++) {
		send_keymap(keyboard, FORMAT_XKB_V1, fd, (uint32_t)(len + 1));
		if ((i + 1) % 8 == 0 && wl_display_roundtrip(h->display) < 0) {
			printf("keymap-reload: refused after %ld\n", i + 1);
			close(fd);
			return refused(h, "keymap-reload");
		}
	}
	close(fd);
	if (wl_display_roundtrip(h->display) < 0) {
		return refused(h, "keymap-reload");
	}
	printf("keymap-reload: all %ld keymaps compiled\n", n);
	return 1;
}

/* keymap-errors N: one keyboard given, N times, a keymap that compiles
 * but makes xkbcommon log 3 errors (an action naming a modifier that does
 * not exist), a round trip every 8; prints how many were served. Before
 * session 30 each error was a line on the compositor's stderr. */
static int keymap_errors(struct hostile *h, long n)
{
	static const char text[] =
			"xkb_keymap {\n"
			"xkb_keycodes \"(unnamed)\" { minimum = 8; maximum = 255; <K1> = 9; };\n"
			"xkb_types \"(unnamed)\" { include \"complete\" };\n"
			"xkb_compatibility \"(unnamed)\" { include \"complete\" };\n"
			"xkb_symbols \"(unnamed)\" { key <K1> { [a], "
			"actions[Group1] = [SetMods(modifiers = SmtNoSuchModifier)] }; };\n"
			"};\n";
	int fd = keymap_file(text, sizeof(text), '\0');
	struct wl_proxy *keyboard = new_keyboard(h);
	long served = 0;
	for (long i = 0; i < n; i++) {
		send_keymap(keyboard, FORMAT_XKB_V1, fd, (uint32_t)sizeof(text));
		if ((i + 1) % 8 == 0 || i + 1 == n) {
			if (wl_display_roundtrip(h->display) < 0) {
				break;
			}
			served = i + 1;
		}
	}
	close(fd);
	printf("keymap-errors: %ld of %ld keymaps served\n", served, n);
	return served == n ? 0 : 1;
}

/* keymap-switch N: two keyboards with a keymap each, a key pressed and
 * released on each in turn, N times, a round trip every 64: the seat's
 * keyboard changes at every key, and wlroots sends the new keyboard's
 * keymap to every client's wl_keyboard each time. Ended with an
 * implementation error (keyboard-switches) or served: exit 0 both ways,
 * what it costs others is their unread keymaps. */
static int keymap_switch(struct hostile *h, long n)
{
	uint32_t size;
	int fd = good_keymap(&size);
	struct wl_proxy *keyboards[2];
	for (int k = 0; k < 2; k++) {
		keyboards[k] = new_keyboard(h);
		send_keymap(keyboards[k], FORMAT_XKB_V1, fd, size);
	}
	close(fd);
	for (long i = 0; i < n; i++) {
		struct wl_proxy *kb = keyboards[i % 2];
		/* KEY_A (evdev 30) is not in the small keymap: nothing types */
		wl_proxy_marshal_flags(kb, 1, NULL, 1, 0, (uint32_t)i, 30u, 1u);
		wl_proxy_marshal_flags(kb, 1, NULL, 1, 0, (uint32_t)i, 30u, 0u);
		if ((i + 1) % 64 == 0 && wl_display_roundtrip(h->display) < 0) {
			printf("keymap-switch: ended after %ld\n", i + 1);
			return refused(h, "keymap-switch");
		}
	}
	if (wl_display_roundtrip(h->display) < 0) {
		return 1;
	}
	printf("KEYMAP_SWITCH served: %ld keys on two keyboards in turn\n", n);
	return 0;
}

/* keymap-flood N / hold-keymaps N: N keyboards, each given the small
 * keymap, a round trip after each. The flood must be refused; the holder
 * keeps them until killed (their memory and fds in its account). */
static int keymaps(struct hostile *h, long n, bool hold)
{
	uint32_t size;
	int fd = good_keymap(&size);
	for (long i = 0; i < n; i++) {
		send_keymap(new_keyboard(h), FORMAT_XKB_V1, fd, size);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("keymaps: refused after %ld\n", i);
			close(fd);
			return hold ? 1 : refused(h, "keymap-flood");
		}
	}
	close(fd);
	if (!hold) {
		printf("keymap-flood: all %ld keyboards kept their keymaps\n", n);
		return 1;
	}
	printf("HOLDING %ld keymaps\n", n);
	fflush(stdout);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

int hostile_keymap_case(struct hostile *h, const char *name, const char *arg, bool *handled)
{
	static const char *const names[] = { "keymap-short", "keymap-unterminated", "keymap-pipe",
		"keymap-format", "keymap-huge", "keymap-includes", "keymap-reload", "keymap-switch",
		"keymap-flood", "hold-keymaps", "keymap-errors" };
	*handled = false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*handled = *handled || strcmp(name, names[i]) == 0;
	}
	if (!*handled) {
		return 0;
	}
	if (!bind_manager(h)) {
		return 1;
	}
	long n = arg != NULL ? atol(arg) : 100;
	if (strcmp(name, "keymap-short") == 0) {
		return keymap_short(h);
	} else if (strcmp(name, "keymap-unterminated") == 0) {
		return keymap_unterminated(h);
	} else if (strcmp(name, "keymap-pipe") == 0) {
		return keymap_pipe(h);
	} else if (strcmp(name, "keymap-format") == 0) {
		return keymap_format(h);
	} else if (strcmp(name, "keymap-huge") == 0) {
		return keymap_huge(h, arg != NULL ? n : (1 << 20) + 4096);
	} else if (strcmp(name, "keymap-includes") == 0) {
		return keymap_includes(h, n);
	} else if (strcmp(name, "keymap-switch") == 0) {
		return keymap_switch(h, n);
	} else if (strcmp(name, "keymap-reload") == 0) {
		return keymap_reload(h, n);
	} else if (strcmp(name, "keymap-errors") == 0) {
		return keymap_errors(h, n);
	} else if (strcmp(name, "keymap-flood") == 0 || strcmp(name, "hold-keymaps") == 0) {
		return keymaps(h, n, name[0] == 'h');
	}
	return 2;
}
