/* Resource accounting (resource_usage.h): a charge that would cross the
 * client's or the total's limit charges nothing and names the level, limit
 * and figures; releases give it back; the executor charges pixmap memory
 * to a client shared by two contexts (two rings of one connection) and
 * releases it on FREE_PIXMAP and when a context goes. */
#include "drawable_table.h"
#include "test_ring_util.h"

static void test_levels(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	total.max[SMT_RES_MEMORY] = 1000;
	struct smt_usage a = { .parent = &total }, b = { .parent = &total };
	a.max[SMT_RES_MEMORY] = b.max[SMT_RES_MEMORY] = 600;
	a.max[SMT_RES_RINGS] = 2;
	struct smt_usage_refusal why;

	CHECK(smt_usage_charge(&a, SMT_RES_MEMORY, 600, &why), "a: up to its limit");
	CHECK(!smt_usage_charge(&a, SMT_RES_MEMORY, 1, &why), "a: over its limit");
	CHECK(why.level == SMT_LEVEL_CLIENT && why.resource == SMT_RES_MEMORY && why.max == 600 &&
	      why.used == 600 && why.asked == 1, "refusal names the client level");
	CHECK(smt_usage_charge(&b, SMT_RES_MEMORY, 400, &why), "b: within the total");
	CHECK(!smt_usage_charge(&b, SMT_RES_MEMORY, 1, &why), "b: the total is full");
	CHECK(why.level == SMT_LEVEL_TOTAL && why.max == 1000 && why.used == 1000, "refusal names the total");
	CHECK(b.used[SMT_RES_MEMORY] == 400 && total.used[SMT_RES_MEMORY] == 1000,
	      "a refused charge charges no level");

	char text[128];
	smt_usage_describe(&why, text, sizeof(text));
	CHECK(strstr(text, "limit total-memory-mib=0 reached: 1000 bytes in use, 1 more asked"),
	      "%s", text);
	CHECK(smt_usage_charge(&a, SMT_RES_RINGS, 2, NULL) &&
	      !smt_usage_charge(&a, SMT_RES_RINGS, 1, &why), "rings");
	smt_usage_describe(&why, text, sizeof(text));
	CHECK(strcmp(text, "limit client-rings=2 reached: 2 in use, 1 more asked") == 0,
	      "%s", text);
	CHECK(!smt_usage_charge(&a, SMT_RES_RINGS, UINT64_MAX, &why), "no wrap-around");

	smt_usage_release(&a, SMT_RES_MEMORY, 600);
	CHECK(smt_usage_charge(&b, SMT_RES_MEMORY, 200, &why), "released memory is free again");
	CHECK(total.used[SMT_RES_MEMORY] == 600, "total %llu",
	      (unsigned long long)total.used[SMT_RES_MEMORY]);
	/* unlimited resource: no max at either level */
	CHECK(smt_usage_charge(&b, SMT_RES_POOLS, 1u << 30, NULL), "no pool limit set");
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

	CHECK(smt_usage_charge(&a, SMT_RES_MEMORY, 400, &why), "a");
	CHECK(smt_usage_charge(&b, SMT_RES_MEMORY, 300, &why), "b: same process, 700 together");
	CHECK(!smt_usage_charge(&b, SMT_RES_MEMORY, 101, &why), "b: the process's limit");
	CHECK(why.level == SMT_LEVEL_PROCESS && why.max == 800 && why.used == 700, "names process");
	smt_usage_describe(&why, text, sizeof(text));
	CHECK(strstr(text, "limit process-memory-mib=0 reached: 700 bytes in use"), "%s", text);
	/* 700 of 1000 used: the last 300 are the reserve. p1 (holding 700)
	 * may not take them; p2, a newcomer, may take up to 300. */
	CHECK(!smt_usage_charge(&a, SMT_RES_MEMORY, 1, &why), "a: not a newcomer");
	CHECK(why.level == SMT_LEVEL_TOTAL && why.reserve, "refused the reserve");
	smt_usage_describe(&why, text, sizeof(text));
	CHECK(strstr(text, "limit total-memory-mib=0 reached (new-client reserve): 700 bytes"), "%s", text);
	CHECK(!smt_usage_charge(&c, SMT_RES_MEMORY, 301, &why), "more than the reserve");
	CHECK(smt_usage_charge(&c, SMT_RES_MEMORY, 200, &why), "newcomer's first window");
	CHECK(smt_usage_charge(&c, SMT_RES_MEMORY, 100, &why), "within the reserve still");
	CHECK(!smt_usage_charge(&c, SMT_RES_MEMORY, 1, &why), "total full");
	CHECK(total.used[SMT_RES_MEMORY] == 1000 && uid.used[SMT_RES_MEMORY] == 1000 &&
	      p1.used[SMT_RES_MEMORY] == 700 && p2.used[SMT_RES_MEMORY] == 300, "levels add up");
	smt_usage_release(&a, SMT_RES_MEMORY, 400);
	CHECK(p1.used[SMT_RES_MEMORY] == 300 && total.used[SMT_RES_MEMORY] == 600, "released");
	CHECK(smt_usage_charge(&a, SMT_RES_MEMORY, 100, &why), "room outside the reserve again");
}

static void test_executor_charges(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage client = { .parent = &total };
	const uint64_t pixmap = 64 * 64 * 4 + SMT_PIXMAP_OVERHEAD;
	client.max[SMT_RES_MEMORY] = 3 * pixmap;
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
	CHECK(client.used[SMT_RES_MEMORY] == 2 * pixmap && total.used[SMT_RES_MEMORY] == 2 * pixmap,
	      "charged to the client and the total");

	s.len = 0;
	ST(&s, smt_encode_create_pixmap(st_at(&s), 1, 64, 64, SMT_FORMAT_ARGB8888));
	ST(&s, smt_encode_create_pixmap(st_at(&s), 2, 64, 64, SMT_FORMAT_ARGB8888));
	CHECK(run_ring(ring2, &s, 4096, &res) == SMT_EXEC_ERROR, "ring 2: the client's limit");
	CHECK(res.error.code == SMT_ERROR_LIMIT &&
	      strstr(res.error.message, "limit client-memory-mib=0 reached") &&
	      strstr(res.error.message, "opcode CREATE_PIXMAP"), "%s", res.error.message);
	CHECK(client.used[SMT_RES_MEMORY] == 3 * pixmap, "the refused pixmap is not charged");

	s.len = 0;
	ST(&s, smt_encode_free_pixmap(st_at(&s), 1));
	expect_ok(run_ring(ring1, &s, 4096, &res), &res, "free on ring 1");
	CHECK(client.used[SMT_RES_MEMORY] == 2 * pixmap, "FREE_PIXMAP releases");
	smt_exec_destroy(ring2);
	smt_exec_destroy(ring1);
	CHECK(client.used[SMT_RES_MEMORY] == 0 && total.used[SMT_RES_MEMORY] == 0,
	      "a context going releases what it held");
	st_fini(&s);
}

int main(void)
{
	test_levels();
	test_process_and_reserve();
	test_executor_charges();
	printf("test_ring_usage: ok\n");
	return 0;
}
