#include <string.h>
#include "compositor/ring/present_post.h"

void present_post_init(struct present_post *post)
{
	memset(post, 0, sizeof(*post));
	pthread_mutex_init(&post->lock, NULL);
}

void present_post_finish(struct present_post *post)
{
	pthread_mutex_destroy(&post->lock);
}

static void outbox_unlist(struct present_post *post, struct present_outbox *box)
{
	if (box->prev != NULL) {
		box->prev->next = box->next;
	} else {
		post->first = box->next;
	}
	if (box->next != NULL) {
		box->next->prev = box->prev;
	} else {
		post->last = box->prev;
	}
	box->next = box->prev = NULL;
}

bool present_post_put(struct present_post *post, struct present_outbox *box, void *canvas,
		uint32_t serial, uint64_t exec_ns, pixman_region32_t *damage, uint64_t charged,
		bool *was_empty)
{
	pthread_mutex_lock(&post->lock);
	*was_empty = post->first == NULL;
	if (box->count >= PRESENT_OUTBOX_MAX) {
		post->refused++;
		pthread_mutex_unlock(&post->lock);
		return false;
	}
	struct present_posted *p = &box->posted[box->count++];
	p->canvas = canvas;
	p->serial = serial;
	p->exec_ns = exec_ns;
	p->damage = *damage; /* the region's rectangles move with it */
	pixman_region32_init(damage);
	p->charged = charged;
	if (box->count == 1) {
		box->prev = post->last;
		box->next = NULL;
		if (post->last != NULL) {
			post->last->next = box;
		} else {
			post->first = box;
		}
		post->last = box;
	}
	post->posted++;
	pthread_mutex_unlock(&post->lock);
	return true;
}

unsigned present_post_take(struct present_post *post, present_taken_fn fn, void *data)
{
	unsigned n = 0;
	pthread_mutex_lock(&post->lock);
	while (post->first != NULL) {
		struct present_outbox *box = post->first;
		for (unsigned i = 0; i < box->count; i++) {
			fn(data, &box->posted[i]);
			pixman_region32_fini(&box->posted[i].damage);
			n++;
		}
		box->count = 0;
		outbox_unlist(post, box);
	}
	post->taken += n;
	pthread_mutex_unlock(&post->lock);
	return n;
}

uint64_t present_post_drop(
		struct present_post *post, struct present_outbox *box, const void *canvas)
{
	pthread_mutex_lock(&post->lock);
	unsigned kept = 0, count = box->count;
	uint64_t charged = 0;
	for (unsigned i = 0; i < count; i++) {
		if (canvas == NULL || box->posted[i].canvas == canvas) {
			pixman_region32_fini(&box->posted[i].damage);
			charged += box->posted[i].charged;
			post->dropped++;
		} else {
			box->posted[kept++] = box->posted[i];
		}
	}
	box->count = kept;
	if (count > 0 && kept == 0) {
		outbox_unlist(post, box);
	}
	pthread_mutex_unlock(&post->lock);
	return charged;
}

bool present_post_pending(struct present_post *post)
{
	pthread_mutex_lock(&post->lock);
	bool pending = post->first != NULL;
	pthread_mutex_unlock(&post->lock);
	return pending;
}
