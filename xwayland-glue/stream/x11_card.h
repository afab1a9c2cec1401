/* X protocol integers in either byte order (the connection's, from its
 * setup), for the stream scanners (x11_request_framer.c, x11_input_scan.c,
 * x11_xi1_query.c). */
#ifndef SMT_X11_CARD_H
#define SMT_X11_CARD_H

#include <stdbool.h>
#include <stdint.h>

static inline uint32_t x11_card16(bool msb_first, const uint8_t *b)
{
	return msb_first ? (uint32_t)b[0] << 8 | b[1] : (uint32_t)b[1] << 8 | b[0];
}

static inline uint32_t x11_card32(bool msb_first, const uint8_t *b)
{
	return msb_first ?
			(uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] :
			(uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

#endif
