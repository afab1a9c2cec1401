/* Creating, attaching and checking the shared segment; see seg.h. */
#define _GNU_SOURCE
#include "xwayland-glue/shim/seg.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xwayland-glue/shim/shim_config.h"
#include "xwayland-glue/shim/conn.h"
#include "xwayland-glue/shim/syms.h"

#define CANARY_BYTES 64u

static void read_setup(struct xshim_conn *sc, uint8_t *root_depth)
{
	const xcb_setup_t *setup = xshim_real.xcb_get_setup(sc->c);
	sc->image_byte_order = setup->image_byte_order;
	sc->max_request_bytes = (uint32_t)setup->maximum_request_length * 4u;
	xcb_screen_iterator_t it = xshim_real.xcb_setup_roots_iterator(setup);
	sc->root = it.data->root;
	*root_depth = it.data->root_depth;
	const xcb_format_t *f = xshim_real.xcb_setup_pixmap_formats(setup);
	int n = xshim_real.xcb_setup_pixmap_formats_length(setup);
	sc->nformats = 0;
	for (int i = 0; i < n && sc->nformats < XSHIM_MAX_FORMATS; i++)
		sc->formats[sc->nformats++] = (struct xshim_format){ f[i].depth,
			f[i].bits_per_pixel, f[i].scanline_pad };
}

/* fd passing needs a Unix socket; on TCP it would break the connection. */
static bool unix_socket(xcb_connection_t *c)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int fd = xshim_real.xcb_get_file_descriptor(c);
	return getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.ss_family == AF_UNIX;
}

static bool version_has_fd(xcb_connection_t *c)
{
	xcb_shm_query_version_cookie_t ck = xshim_real.xcb_shm_query_version(c);
	xcb_shm_query_version_reply_t *r = xshim_real.xcb_wait_for_reply(c, ck.sequence, NULL);
	bool ok = r && (r->major_version > 1 || (r->major_version == 1 && r->minor_version >= 2));
	free(r);
	return ok;
}

/* memfd: nothing global to leak if the process dies; attach passes the fd. */
static bool attach_memfd(struct xshim_conn *sc, xcb_void_cookie_t *ack)
{
	int fd = memfd_create("smt-x11shim", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	void *p = MAP_FAILED;
	if (ftruncate(fd, sc->size) == 0)
		p = mmap(NULL, sc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return false;
	}
	sc->base = p;
	sc->shmid = -1;
	*ack = xshim_real.xcb_shm_attach_fd_checked(sc->c, sc->seg, fd, 0); /* xcb closes fd */
	return true;
}

static bool attach_sysv(struct xshim_conn *sc, xcb_void_cookie_t *ack)
{
	int id = shmget(IPC_PRIVATE, sc->size, IPC_CREAT | 0600);
	if (id < 0)
		return false;
	void *p = shmat(id, NULL, 0);
	if (p == (void *)-1) {
		shmctl(id, IPC_RMID, NULL);
		return false;
	}
	sc->base = p;
	sc->shmid = id;
	*ack = xshim_real.xcb_shm_attach_checked(sc->c, sc->seg, (uint32_t)id, 0);
	return true;
}

/*
 * Proves that the server writes into the memory we read: it fills a 1x1
 * pixmap with 0 and ShmGetImages it over a canary. A remote server either
 * refuses the attach (BadAccess) or, worse, attaches an unrelated segment with
 * the same id on its own machine; only this round trip tells the two apart
 * from a working local one. Also collects the attach error, if any.
 */
static const char *verify(
		struct xshim_conn *sc, uint8_t depth, xcb_void_cookie_t ack, bool *attached)
{
	xcb_connection_t *c = sc->c;
	memset(sc->base, 0xa5, CANARY_BYTES);
	xcb_pixmap_t pix = xshim_real.xcb_generate_id(c);
	xcb_gcontext_t gc = xshim_real.xcb_generate_id(c);
	xshim_real.xcb_create_pixmap(c, depth, pix, sc->root, 1, 1);
	xshim_real.xcb_create_gc(c, gc, pix, 0, NULL);
	xcb_rectangle_t r = { 0, 0, 1, 1 };
	xshim_real.xcb_poly_fill_rectangle(c, pix, gc, 1, &r);
	xcb_shm_get_image_cookie_t gk = xshim_real.xcb_shm_get_image(
			c, pix, 0, 0, 1, 1, ~0u, XCB_IMAGE_FORMAT_Z_PIXMAP, sc->seg, 0);
	xshim_real.xcb_free_gc(c, gc);
	xshim_real.xcb_free_pixmap(c, pix);

	xcb_generic_error_t *gerr = NULL;
	xcb_shm_get_image_reply_t *rep = xshim_real.xcb_wait_for_reply(c, gk.sequence, &gerr);
	xcb_generic_error_t *aerr = xshim_real.xcb_request_check(c, ack);
	const char *why = NULL;
	*attached = !aerr;
	if (aerr)
		why = "ShmAttach refused (remote display or no access)";
	else if (!rep)
		why = "ShmGetImage failed";
	else if (rep->size == 0 || rep->size > CANARY_BYTES)
		why = "unexpected ShmGetImage size";
	else
		for (uint32_t i = 0; i < rep->size && !why; i++)
			if (sc->base[i] != 0)
				why = "the server does not see the segment (remote display?)";
	free(aerr);
	free(gerr);
	free(rep);
	return why;
}

static void unmap(struct xshim_conn *sc)
{
	if (!sc->base)
		return;
	if (sc->shmid >= 0)
		shmdt(sc->base);
	else
		munmap(sc->base, sc->size);
	sc->base = NULL;
}

bool xshim_seg_setup(struct xshim_conn *sc, const char **why)
{
	const struct xshim_config *cfg = xshim_config();
	xcb_connection_t *c = sc->c;
	if (!xshim_syms_helpers_ok() || !xshim_syms_load_shm()) {
		*why = "libxcb-shm or libX11-xcb not found";
		return false;
	}
	if (xshim_real.xcb_connection_has_error(c)) {
		*why = "connection has an error";
		return false;
	}
	const xcb_query_extension_reply_t *ext = xshim_real.xcb_get_extension_data(
			c, xshim_real.xcb_shm_id);
	if (!ext || !ext->present) {
		*why = "no MIT-SHM extension";
		return false;
	}
	sc->shm_major = ext->major_opcode;
	uint8_t depth;
	read_setup(sc, &depth);

	bool use_fd = !cfg->sysv && xshim_real.xcb_shm_attach_fd_checked && unix_socket(c) &&
			version_has_fd(c);
	sc->size = cfg->segment;
	sc->seg = xshim_real.xcb_generate_id(c);
	xcb_void_cookie_t ack;
	if (!(use_fd && attach_memfd(sc, &ack)) && !attach_sysv(sc, &ack)) {
		*why = "cannot create shared memory";
		return false;
	}

	bool attached;
	*why = verify(sc, depth, ack, &attached);
	if (sc->shmid >= 0) {
		/* Gone as soon as both sides detach, even if we crash. */
		shmctl(sc->shmid, IPC_RMID, NULL);
	}
	if (*why) {
		if (attached) /* (detaching an unknown segment would be an error) */
			xshim_real.xcb_shm_detach(c, sc->seg);
		unmap(sc);
		return false;
	}
	xshim_debug("connection %p: %u-byte %s segment", (void *)c, sc->size,
			sc->shmid >= 0 ? "SysV" : "memfd");
	return true;
}

void xshim_seg_destroy(struct xshim_conn *sc)
{
	unmap(sc);
}
