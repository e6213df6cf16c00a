/* The recorder of found moves: every move, or the best `keep` in rank order. */
#include "scrab.h"

/* ---------------------------------------------------------------------------------------
 * Sinks: what happens to each move found.
 */


/* < 0 when a ranks before b: equity (score + leave) high first, then fewer blanks, then kind,
 * direction (across first), line, start, and the codes (as Python compares tuples). */
int rank_cmp(const Record *a, const Record *b) {
    if (a->score != b->score || a->leave != b->leave) {
        int64_t ds = a->score - b->score;
        if (ds > DECISIVE) {
            return -1;
        }
        if (ds < -DECISIVE) {
            return 1;
        }
        int64_t e = ds * 1000 + ((int64_t)a->leave - (int64_t)b->leave);
        if (e != 0) {
            return e > 0 ? -1 : 1;
        }
    }
    if (a->blanks != b->blanks) {
        return a->blanks < b->blanks ? -1 : 1;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind ? -1 : 1;
    }
    if (a->down != b->down) {
        return a->down < b->down ? -1 : 1;
    }
    if (a->line != b->line) {
        return a->line < b->line ? -1 : 1;
    }
    if (a->start != b->start) {
        return a->start < b->start ? -1 : 1;
    }
    int n = a->length < b->length ? a->length : b->length;
    int c = memcmp(a->codes, b->codes, (size_t)n);
    if (c != 0) {
        return c;
    }
    return (int)a->length - (int)b->length;
}

int rank_qsort(const void *a, const void *b) { return rank_cmp((const Record *)a, (const Record *)b); }

/* A radix sort, a byte at a time from the lowest above the index, skipping the bytes every
 * key shares (the high ones mostly). Each pass is stable and the keys come in index order,
 * so the index bytes need no pass. No comparison function is called: a list of a few
 * hundred moves sorts in a few passes over it. */
void sort_keys(uint64_t *keys, uint64_t *tmp, size_t n) {
    if (n < 2) {
        return;
    }
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        all_or |= keys[i];
        all_and &= keys[i];
    }
    uint64_t varies = all_or ^ all_and;
    uint64_t *from = keys, *to = tmp;
    for (int shift = SORT_INDEX_BITS; shift < 64; shift += 8) {
        if (((varies >> shift) & 0xff) == 0) {
            continue;
        }
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) {
            count[((from[i] >> shift) & 0xff) + 1]++;
        }
        for (int b = 0; b < 256; b++) {
            count[b + 1] += count[b];
        }
        for (size_t i = 0; i < n; i++) {
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        }
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys) {
        memcpy(keys, from, n * sizeof *keys);
    }
}

static void heap_sift_down(Record *h, size_t n, size_t i) {
    for (;;) {
        size_t worst = i, l = 2 * i + 1, r = l + 1;
        if (l < n && rank_cmp(&h[l], &h[worst]) > 0) {
            worst = l;
        }
        if (r < n && rank_cmp(&h[r], &h[worst]) > 0) {
            worst = r;
        }
        if (worst == i) {
            return;
        }
        Record t = h[i];
        h[i] = h[worst];
        h[worst] = t;
        i = worst;
    }
}

void sink_add(Sink *s, const Record *r) {
    s->total++;
    if (s->keep == 0) {
        if (s->count == s->cap) {
            if (s->failed) {
                return;
            }
            size_t cap = s->cap ? s->cap * 2 : 1024;
            if (cap > MAX_RECORDS) {
                cap = MAX_RECORDS;
            }
            Record *items = s->count < MAX_RECORDS ? realloc(s->items, cap * sizeof(Record)) : NULL;
            if (items == NULL) {
                s->failed = 1;
                return;
            }
            s->items = items;
            s->cap = cap;
        }
        s->items[s->count++] = *r;
        return;
    }
    if (s->count < (size_t)s->keep) { /* sift up */
        if (s->count == s->cap) {
            /* The heap grows as moves come, up to `keep`: a --top far above the moves there
             * are costs no memory up front. */
            if (s->failed) {
                return;
            }
            size_t cap = s->cap * 2;
            if (cap > (size_t)s->keep) {
                cap = (size_t)s->keep;
            }
            Record *items = realloc(s->items, cap * sizeof(Record));
            if (items == NULL) {
                s->failed = 1;
                return;
            }
            s->items = items;
            s->cap = cap;
        }
        size_t i = s->count++;
        s->items[i] = *r;
        while (i > 0) {
            size_t parent = (i - 1) / 2;
            if (rank_cmp(&s->items[i], &s->items[parent]) <= 0) {
                break;
            }
            Record t = s->items[i];
            s->items[i] = s->items[parent];
            s->items[parent] = t;
            i = parent;
        }
    } else if (rank_cmp(r, &s->items[0]) < 0) {
        s->items[0] = *r;
        heap_sift_down(s->items, s->count, 0);
    }
}

