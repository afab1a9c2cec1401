/* Resource accounting (resource_usage.h): a charge that would cross the
 * client's or the total's limit charges nothing and names the level, limit
 * and figures; releases give it back; the executor charges pixmap memory
 * and its drawable table to a client shared by two contexts (two rings of
 * one connection) and releases it on FREE_PIXMAP and when a context goes;
 * the table costs what it allocates (a chunk per range of ids used), not
 * the largest id, and its growth is refused naming the limit; a ring's
 * clip and damage regions are charged while it keeps them (session 42). */
#include <unistd.h>

#include "compositor/exec/drawable_table.h"
#include "compositor/exec/page_release.h"
#include "tests/unit/test_ring_util.h"

static void test_levels(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	total.max[SMT_RES_MEMORY] = 1000;
	struct smt_usage a = { .parent = &total }, b = { .parent = &total };
	a.max[SMT_RES_MEMORY] = b.max[SMT_RES_MEMORY] = 600;
	a.max[SMT_RES_RINGS] = 2;
	struct smt_usage_refusal why;

	REQUIRE(smt_usage_charge(&a, SMT_RES_MEMORY, 600, &why), "a: up to its limit");
	REQUIRE(!smt_usage_charge(&a, SMT_RES_MEMORY, 1, &why), "a: over its limit");
	REQUIRE(why.level == SMT_LEVEL_CLIENT && why.resource == SMT_RES_MEMORY && why.max == 600 &&
					why.used == 600 && why.asked == 1,
			"refusal names the client level");
	REQUIRE(smt_usage_charge(&b, SMT_RES_MEMORY, 400, &why), "b: within the total");
	REQUIRE(!smt_usage_charge(&b, SMT_RES_MEMORY, 1, &why), "b: the total is full");
	REQUIRE(why.level == SMT_LEVEL_TOTAL && why.max == 1000 && why.used == 1000,
			"refusal names the total");
	REQUIRE(b.used[SMT_RES_MEMORY] == 400 && total.used[SMT_RES_MEMORY] == 1000,
			"a refused charge charges no level");

	char text[128];
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strstr(text, "limit total-memory-mib=0 reached: 1000 bytes in use, 1 more asked"),
			"%s", text);
	REQUIRE(smt_usage_charge(&a, SMT_RES_RINGS, 2, NULL) &&
					!smt_usage_charge(&a, SMT_RES_RINGS, 1, &why),
			"rings");
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strcmp(text, "limit client-rings=2 reached: 2 in use, 1 more asked") == 0, "%s",
			text);
	REQUIRE(!smt_usage_charge(&a, SMT_RES_RINGS, UINT64_MAX, &why), "no wrap-around");

	smt_usage_release(&a, SMT_RES_MEMORY, 600);
	REQUIRE(smt_usage_charge(&b, SMT_RES_MEMORY, 200, &why), "released memory is free again");
	REQUIRE(total.used[SMT_RES_MEMORY] == 600, "total %llu",
			(unsigned long long)total.used[SMT_RES_MEMORY]);
	/* unlimited resource: no max at either level */
	REQUIRE(smt_usage_charge(&b, SMT_RES_POOLS, 1u << 30, NULL), "no pool limit set");
}

/* Connections of one process share its account: two clients of one pid
 * together cannot pass the process's limit, another process can; the
 * total's reserve is for processes that hold no more than it. */
static void test_process_and_reserve(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	total.max[SMT_RES_MEMORY] = 1000;
	total.reserve[SMT_RES_MEMORY] = 300;
	struct smt_usage uid = { .level = SMT_LEVEL_UID, .parent = &total };
	struct smt_usage p1 = { .level = SMT_LEVEL_PROCESS, .parent = &uid };
	struct smt_usage p2 = { .level = SMT_LEVEL_PROCESS, .parent = &uid };
	p1.max[SMT_RES_MEMORY] = p2.max[SMT_RES_MEMORY] = 800;
	struct smt_usage a = { .parent = &p1 }, b = { .parent = &p1 }, c = { .parent = &p2 };
	a.max[SMT_RES_MEMORY] = b.max[SMT_RES_MEMORY] = c.max[SMT_RES_MEMORY] = 500;
	struct smt_usage_refusal why;
	char text[160];

	REQUIRE(smt_usage_charge(&a, SMT_RES_MEMORY, 400, &why), "a");
	REQUIRE(smt_usage_charge(&b, SMT_RES_MEMORY, 300, &why), "b: same process, 700 together");
	REQUIRE(!smt_usage_charge(&b, SMT_RES_MEMORY, 101, &why), "b: the process's limit");
	REQUIRE(why.level == SMT_LEVEL_PROCESS && why.max == 800 && why.used == 700,
			"names process");
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strstr(text, "limit process-memory-mib=0 reached: 700 bytes in use"), "%s", text);
	/* 700 of 1000 used: the last 300 are the reserve. p1 (holding 700)
	 * may not take them; p2, a newcomer, may take up to 300. */
	REQUIRE(!smt_usage_charge(&a, SMT_RES_MEMORY, 1, &why), "a: not a newcomer");
	REQUIRE(why.level == SMT_LEVEL_TOTAL && why.reserve, "refused the reserve");
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strstr(text, "limit total-memory-mib=0 reached (new-client reserve): 700 bytes"),
			"%s", text);
	REQUIRE(!smt_usage_charge(&c, SMT_RES_MEMORY, 301, &why), "more than the reserve");
	REQUIRE(smt_usage_charge(&c, SMT_RES_MEMORY, 200, &why), "newcomer's first window");
	REQUIRE(smt_usage_charge(&c, SMT_RES_MEMORY, 100, &why), "within the reserve still");
	REQUIRE(!smt_usage_charge(&c, SMT_RES_MEMORY, 1, &why), "total full");
	REQUIRE(total.used[SMT_RES_MEMORY] == 1000 && uid.used[SMT_RES_MEMORY] == 1000 &&
					p1.used[SMT_RES_MEMORY] == 700 &&
					p2.used[SMT_RES_MEMORY] == 300,
			"levels add up");
	smt_usage_release(&a, SMT_RES_MEMORY, 400);
	REQUIRE(p1.used[SMT_RES_MEMORY] == 300 && total.used[SMT_RES_MEMORY] == 600, "released");
	REQUIRE(smt_usage_charge(&a, SMT_RES_MEMORY, 100, &why), "room outside the reserve again");
}

/* What must not be refused (the compositor's own connection's surfaces)
 * is counted at every level over the limits, and the others then see it:
 * the uid's surfaces limit and its reserve count it. */
static void test_over_limits(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage uid = { .level = SMT_LEVEL_UID, .parent = &total };
	uid.max[SMT_RES_SURFACES] = 10;
	uid.reserve[SMT_RES_SURFACES] = 2;
	struct smt_usage p1 = { .level = SMT_LEVEL_PROCESS, .parent = &uid };
	struct smt_usage p2 = { .level = SMT_LEVEL_PROCESS, .parent = &uid };
	struct smt_usage own = { .parent = &p1 }, c = { .parent = &p2 };
	struct smt_usage_refusal why;
	char text[160];

	smt_usage_charge_over_limits(&own, SMT_RES_SURFACES, 12);
	REQUIRE(own.used[SMT_RES_SURFACES] == 12 && uid.used[SMT_RES_SURFACES] == 12 &&
					total.used[SMT_RES_SURFACES] == 12,
			"counted at every level over the limit");
	REQUIRE(!smt_usage_charge(&c, SMT_RES_SURFACES, 1, &why), "the uid is full");
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strcmp(text, "limit uid-surfaces=10 reached: 12 in use, 1 more asked") == 0, "%s",
			text);
	smt_usage_release(&own, SMT_RES_SURFACES, 5);
	REQUIRE(smt_usage_charge(&c, SMT_RES_SURFACES, 2, &why), "a newcomer: from the reserve");
	REQUIRE(!smt_usage_charge(&c, SMT_RES_SURFACES, 1, &why) && why.reserve,
			"past the reserve");
	smt_usage_describe(&why, text, sizeof(text));
	REQUIRE(strcmp(text,
				"limit uid-surfaces=10 reached (new-client reserve): 9 in use, "
				"1 more asked") == 0,
			"%s", text);
	smt_usage_charge_over_limits(&own, SMT_RES_SURFACES, UINT64_MAX);
	REQUIRE(total.used[SMT_RES_SURFACES] == UINT64_MAX, "no wrap-around");
}

static void test_executor_charges(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage client = { .parent = &total };
	const uint64_t pixmap = 64 * 64 * 4 + SMT_PIXMAP_OVERHEAD;
	/* The directory's first entries and one chunk: ids 1 and 2 share it. */
	const uint64_t table = 4 * sizeof(void *) + 16 + smt_drawables_chunk_bytes();
	client.max[SMT_RES_MEMORY] = 3 * pixmap + 2 * table;
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.usage = &client;
	struct smt_exec_ctx *ring1 = smt_exec_create(&cfg), *ring2 = smt_exec_create(&cfg);
	struct smt_exec_result res;
	struct stream s;
	st_init(&s);
	ST(&s, smt_encode_create_pixmap(st_at(&s), 1, 64, 64, SMT_FORMAT_ARGB8888));
	ST(&s, smt_encode_create_pixmap(st_at(&s), 2, 64, 64, SMT_FORMAT_ARGB8888));
	expect_ok(run_ring(ring1, &s, 4096, &res), &res, "two pixmaps on ring 1");
	REQUIRE(smt_exec_table_bytes(ring1) == table, "table %llu",
			(unsigned long long)smt_exec_table_bytes(ring1));
	REQUIRE(client.used[SMT_RES_MEMORY] == 2 * pixmap + table &&
					total.used[SMT_RES_MEMORY] == 2 * pixmap + table,
			"charged to the client and the total");

	s.len = 0;
	ST(&s, smt_encode_create_pixmap(st_at(&s), 1, 64, 64, SMT_FORMAT_ARGB8888));
	ST(&s, smt_encode_create_pixmap(st_at(&s), 2, 64, 64, SMT_FORMAT_ARGB8888));
	REQUIRE(run_ring(ring2, &s, 4096, &res) == SMT_EXEC_ERROR, "ring 2: the client's limit");
	REQUIRE(res.error.code == SMT_ERROR_LIMIT &&
					strstr(res.error.message,
							"limit client-memory-mib=0 reached") &&
					strstr(res.error.message, "opcode CREATE_PIXMAP"),
			"%s", res.error.message);
	REQUIRE(client.used[SMT_RES_MEMORY] == 3 * pixmap + 2 * table,
			"the refused pixmap is not charged (ring 2's table is)");

	s.len = 0;
	ST(&s, smt_encode_free_pixmap(st_at(&s), 1));
	expect_ok(run_ring(ring1, &s, 4096, &res), &res, "free on ring 1");
	REQUIRE(client.used[SMT_RES_MEMORY] == 2 * pixmap + 2 * table, "FREE_PIXMAP releases");
	smt_exec_destroy(ring2);
	smt_exec_destroy(ring1);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0 && total.used[SMT_RES_MEMORY] == 0,
			"a context going releases what it held");
	st_fini(&s);
}

/* Issue 24, item 2: one pixmap with the largest id grew the table to 2^18
 * slots (15 MiB) while 260 bytes were charged. */
static void test_table_charges(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage client = { .parent = &total };
	const uint64_t pixmap = 1 * 1 * 4 + SMT_PIXMAP_OVERHEAD;
	client.max[SMT_RES_MEMORY] = 1u << 20;
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.usage = &client;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);
	struct smt_exec_result res;
	struct stream s;
	st_init(&s);
	const uint32_t top = cfg.max_drawable_id - 1;
	ST(&s, smt_encode_create_pixmap(st_at(&s), top, 1, 1, SMT_FORMAT_ARGB8888));
	expect_ok(run_ring(ctx, &s, 4096, &res), &res, "a pixmap with the largest id");
	uint64_t dir = (uint64_t)cfg.max_drawable_id / SMT_DRAWABLE_CHUNK * sizeof(void *) + 16;
	REQUIRE(smt_exec_table_bytes(ctx) == dir + smt_drawables_chunk_bytes(),
			"table: the directory and one chunk, %llu bytes",
			(unsigned long long)smt_exec_table_bytes(ctx));
	REQUIRE(smt_exec_table_bytes(ctx) < 64u << 10, "not 2^18 slots");
	REQUIRE(client.used[SMT_RES_MEMORY] == pixmap + smt_exec_table_bytes(ctx),
			"what the table allocated is charged: %llu",
			(unsigned long long)client.used[SMT_RES_MEMORY]);

	/* One pixmap per chunk until the client's memory is full: refused by a
	 * chunk's charge, naming the limit, nothing charged for it. */
	uint32_t id = SMT_DRAWABLE_CHUNK, made = 0;
	enum smt_exec_stop stop = SMT_EXEC_EMPTY;
	while (id < top && stop != SMT_EXEC_ERROR) {
		s.len = 0;
		ST(&s, smt_encode_create_pixmap(st_at(&s), id, 1, 1, SMT_FORMAT_ARGB8888));
		stop = run_ring(ctx, &s, 4096, &res);
		made += stop != SMT_EXEC_ERROR;
		id += SMT_DRAWABLE_CHUNK;
	}
	REQUIRE(stop == SMT_EXEC_ERROR && res.error.code == SMT_ERROR_LIMIT &&
					strstr(res.error.message,
							"limit client-memory-mib=1 reached") &&
					strstr(res.error.message, "opcode CREATE_PIXMAP"),
			"%s", res.error.message);
	REQUIRE(made > 10 && made < (1u << 20) / smt_drawables_chunk_bytes(), "%u sparse pixmaps",
			made);
	REQUIRE(client.used[SMT_RES_MEMORY] == (made + 1) * pixmap + smt_exec_table_bytes(ctx) &&
					client.used[SMT_RES_MEMORY] <= 1u << 20,
			"charged: %llu", (unsigned long long)client.used[SMT_RES_MEMORY]);

	/* A canvas that needs a new chunk is refused the same way. */
	pixman_image_t *img = pixman_image_create_bits(PIXMAN_a8r8g8b8, 4, 4, NULL, 0);
	REQUIRE(smt_exec_register_canvas(ctx, id, img) == SMT_ERROR_LIMIT &&
					smt_exec_last_refusal(ctx) != NULL &&
					smt_exec_last_refusal(ctx)->level == SMT_LEVEL_CLIENT,
			"a canvas's chunk refused naming the client's limit");
	REQUIRE(smt_exec_register_canvas(ctx, top - 1, img) == SMT_ERROR_NONE &&
					smt_exec_last_refusal(ctx) == NULL,
			"a canvas in a chunk that exists");
	pixman_image_unref(img);
	smt_exec_destroy(ctx);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0 && total.used[SMT_RES_MEMORY] == 0,
			"everything released with the context");
	st_fini(&s);
}

/* Session 42: a ring's clip and last PRESENT's damage (up to 16,384
 * boxes, 256 KiB each) are the client's memory while the ring keeps them:
 * charged when a SET_CLIP or PRESENT makes them, released when replaced or
 * with the context, and refused at the limit naming it. */
enum {
	REGION_RECTS = 4094,
	REGION_W = 2 * REGION_RECTS,
	REGION_H = 7
};

static void region_rects(struct smt_rect *r)
{
	/* one-pixel columns, each a row lower than the one before, cycling:
	 * no two bands alike, 4 x 4,094 boxes */
	for (uint32_t i = 0; i < REGION_RECTS; i++)
		r[i] = (struct smt_rect){ (int32_t)(2 * i), (int32_t)(i % 4), 1, 4 };
}

static void test_region_charges(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage client = { .parent = &total };
	client.max[SMT_RES_MEMORY] = 4u << 20;
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.usage = &client;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);
	static struct smt_rect rects[REGION_RECTS];
	region_rects(rects);
	const uint64_t least = (uint64_t)REGION_RECTS * 4 * sizeof(pixman_box32_t);
	struct smt_exec_result res;
	struct stream s;
	st_init(&s);

	pixman_image_t *img = pixman_image_create_bits(
			PIXMAN_a8r8g8b8, REGION_W, REGION_H, NULL, 0);
	REQUIRE(smt_exec_register_canvas(ctx, 2, img) == SMT_ERROR_NONE, "canvas");
	ST(&s, smt_encode_create_pixmap(st_at(&s), 1, REGION_W, REGION_H, SMT_FORMAT_A8));
	ST(&s, smt_encode_set_target(st_at(&s), 1));
	expect_ok(run_ring(ctx, &s, 1u << 18, &res), &res, "a pixmap as the target");
	const uint64_t images = client.used[SMT_RES_MEMORY];
	REQUIRE(smt_exec_region_bytes(ctx) == 0, "a clip of the target's bounds holds nothing");

	s.len = 0;
	ST(&s, smt_encode_set_clip(st_at(&s), REGION_RECTS, rects));
	expect_ok(run_ring(ctx, &s, 1u << 18, &res), &res, "the largest clip");
	uint64_t clip = smt_exec_region_bytes(ctx);
	REQUIRE(clip >= least && clip < 2 * least, "clip: %llu bytes", (unsigned long long)clip);
	REQUIRE(client.used[SMT_RES_MEMORY] == images + clip &&
					total.used[SMT_RES_MEMORY] == images + clip,
			"the clip charged to the client and the total");

	s.len = 0;
	ST(&s, smt_encode_present(st_at(&s), 2, 1, REGION_RECTS, rects));
	expect_ok(run_ring(ctx, &s, 1u << 18, &res), &res, "the largest damage");
	uint64_t both = smt_exec_region_bytes(ctx);
	REQUIRE(both >= clip + least && client.used[SMT_RES_MEMORY] == images + both,
			"the damage charged too: %llu bytes", (unsigned long long)both);

	/* The glue takes the damage with its charge (ring/canvas.c): the
	 * ring holds none of it, the client's memory still does. */
	pixman_region32_t taken;
	uint64_t charged = smt_exec_take_damage(ctx, &taken);
	REQUIRE(charged == both - clip && smt_exec_region_bytes(ctx) == clip &&
					client.used[SMT_RES_MEMORY] == images + both &&
					pixman_region32_n_rects(&taken) == 4 * REGION_RECTS,
			"taken: %llu bytes", (unsigned long long)charged);
	pixman_region32_fini(&taken);
	smt_usage_release(&client, SMT_RES_MEMORY, charged);

	s.len = 0;
	ST(&s, smt_encode_present(st_at(&s), 2, 2, 0, NULL));
	ST(&s, smt_encode_set_target(st_at(&s), 1));
	expect_ok(run_ring(ctx, &s, 1u << 18, &res), &res, "whole damage, target again");
	REQUIRE(smt_exec_region_bytes(ctx) == 0 && client.used[SMT_RES_MEMORY] == images,
			"replaced by rectangles: released");

	/* Room for less than the clip: refused naming the limit, nothing kept. */
	client.max[SMT_RES_MEMORY] = images + least / 2;
	s.len = 0;
	ST(&s, smt_encode_set_clip(st_at(&s), REGION_RECTS, rects));
	REQUIRE(run_ring(ctx, &s, 1u << 18, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_LIMIT &&
					strstr(res.error.message, "limit client-memory-mib=") &&
					strstr(res.error.message, "opcode SET_CLIP"),
			"%s", res.error.message);
	REQUIRE(smt_exec_region_bytes(ctx) == 0 && client.used[SMT_RES_MEMORY] == images,
			"the refused clip is not charged");
	smt_exec_destroy(ctx);
	pixman_image_unref(img);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0 && total.used[SMT_RES_MEMORY] == 0,
			"everything released with the context");

	/* A context that goes holding both releases them. */
	client.max[SMT_RES_MEMORY] = 4u << 20;
	ctx = smt_exec_create(&cfg);
	img = pixman_image_create_bits(PIXMAN_a8r8g8b8, REGION_W, REGION_H, NULL, 0);
	REQUIRE(smt_exec_register_canvas(ctx, 2, img) == SMT_ERROR_NONE, "canvas");
	s.len = 0;
	ST(&s, smt_encode_set_target(st_at(&s), 2));
	ST(&s, smt_encode_set_clip(st_at(&s), REGION_RECTS, rects));
	ST(&s, smt_encode_present(st_at(&s), 2, 3, REGION_RECTS, rects));
	expect_ok(run_ring(ctx, &s, 1u << 18, &res), &res, "a clip and a damage held");
	REQUIRE(smt_exec_region_bytes(ctx) >= 2 * least, "both held");
	smt_exec_destroy(ctx);
	pixman_image_unref(img);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0, "released with the context");
	st_fini(&s);
}

/* page_release gives back only the pages wholly inside the block, in
 * pieces, and leaves the partial pages at both ends (the allocator's
 * headers may live there) as they were. */
static void test_page_release(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = 10 * page + 200;
	unsigned char *mem = aligned_alloc(page, 12 * page);
	unsigned char *block = mem + 100; /* starts and ends inside a page */
	memset(mem, 0xab, 12 * page);
	struct page_release pr;
	page_release_init(&pr, block, len);
	REQUIRE(pr.pages == mem + page && pr.len == 9 * page, "whole pages: %zu", pr.len / page);
	unsigned pieces = 0;
	while (page_release_some(&pr, 2 * page) > 0)
		pieces++;
	REQUIRE(pieces == 5 && page_release_done(&pr), "in pieces: %u", pieces);
	size_t zero = 0, kept = 0;
	for (size_t i = 0; i < 12 * page; i++) {
		if (i >= page && i < 10 * page)
			zero += mem[i] == 0;
		else
			kept += mem[i] == 0xab;
	}
	REQUIRE(zero == 9 * page && kept == 3 * page, "released %zu, kept %zu", zero, kept);
	page_release_init(&pr, block, page / 2); /* no whole page: nothing */
	REQUIRE(pr.len == 0 && page_release_some(&pr, page) == 0, "a block inside a page");
	free(mem);
}

/* A gone client's large pixmap goes in pieces: its pages over several
 * calls, then the pixmap; the memory stays charged until it is freed. */
static void test_large_pixmap_in_pieces(void)
{
	struct smt_usage client = { 0 };
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.usage = &client;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);
	struct smt_exec_result res;
	struct stream s;
	st_init(&s);
	ST(&s, smt_encode_create_pixmap(st_at(&s), 7, 2048, 2048, SMT_FORMAT_ARGB8888));
	ST(&s, smt_encode_create_pixmap(st_at(&s), 8, 64, 64, SMT_FORMAT_ARGB8888));
	expect_ok(run_ring(ctx, &s, 4096, &res), &res, "a 16 MiB and a 16 KiB pixmap");
	uint64_t charged = client.used[SMT_RES_MEMORY];
	unsigned calls = 1;
	REQUIRE(!smt_exec_free_pixmaps(ctx, 1, 0), "the small one first (highest id)");
	REQUIRE(smt_exec_pixmap_count(ctx) == 1, "%u left", smt_exec_pixmap_count(ctx));
	while (!smt_exec_free_pixmaps(ctx, 1, 0) && calls < 100) {
		calls++;
		REQUIRE(smt_exec_pixmap_count(ctx) == 1 &&
						client.used[SMT_RES_MEMORY] ==
								charged - (64 * 64 * 4 + SMT_PIXMAP_OVERHEAD),
				"charged until freed");
	}
	REQUIRE(calls >= 4 && calls < 100 && smt_exec_pixmap_count(ctx) == 0,
			"16 MiB of pages in pieces of 4 MiB: %u calls", calls);
	REQUIRE(client.used[SMT_RES_MEMORY] == smt_exec_table_bytes(ctx), "only the table left");
	smt_exec_destroy(ctx);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0, "nothing left");
	st_fini(&s);
}

int main(void)
{
	test_levels();
	test_process_and_reserve();
	test_over_limits();
	test_executor_charges();
	test_table_charges();
	test_region_charges();
	test_page_release();
	test_large_pixmap_in_pieces();
	printf("test_ring_usage: ok\n");
	return 0;
}
