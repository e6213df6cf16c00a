/* Leave tables: the index of a leave, the values read in move generation (Leaves), and the
 * training estimates that make a table from self-play. */
#include "scrab.h"

/* ---------------------------------------------------------------------------------------
 * Leave values: a table indexed by the multiset of tiles kept (see leave_index).
 */

int64_t BINOM[40][MAX_LEAVE + 2];
int64_t LEAVE_OFFSET[MAX_LEAVE + 2];

void init_tables(void) {
    for (int n = 0; n < 40; n++) {
        BINOM[n][0] = 1;
        for (int k = 1; k <= MAX_LEAVE + 1; k++) {
            BINOM[n][k] = n == 0 ? 0 : BINOM[n - 1][k - 1] + BINOM[n - 1][k];
        }
    }
    LEAVE_OFFSET[0] = 0;
    for (int k = 0; k <= MAX_LEAVE; k++) {
        /* multisets of k tiles over 27 codes: C(26 + k, k) */
        LEAVE_OFFSET[k + 1] = LEAVE_OFFSET[k] + BINOM[26 + k][k];
    }
}

/* The index of the multiset `counts` (27 counts, at most MAX_LEAVE tiles) in a leave table:
 * leaves of fewer tiles first, then the combinatorial number system on the sorted tiles
 * (tile i, 1-based, with code c adds C(c + i - 1, i)). -1 when the leave is too big. */
int64_t leave_index(const uint8_t *counts) {
    int64_t rank = 0;
    int i = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        for (int c = counts[code]; c > 0; c--) {
            i++;
            if (i > MAX_LEAVE) {
                return -1;
            }
            rank += BINOM[code + i - 1][i];
        }
    }
    return LEAVE_OFFSET[i] + rank;
}

/* The mean value of the distinct MAX_LEAVE-tile sub-leaves of `counts` (a leave too long for
 * the table: a pass keeps the whole rack), rounded towards zero; leaves.py's fallback_value. */
int32_t fallback_value(const int16_t *leaves, const uint8_t *counts) {
    uint8_t sub[RACK_CODES];
    int64_t total = 0, n = 0;
    int tiles = 0;
    for (int code = 0; code < RACK_CODES; code++) {
        tiles += counts[code];
    }
    if (tiles > MAX_LEAVE + 1) {
        return 0; /* no table speaks for racks longer than 7 (custom rules): no value */
    }
    /* odometer over sub[code] <= counts[code], keeping those of exactly MAX_LEAVE tiles */
    memset(sub, 0, sizeof sub);
    for (;;) {
        int size = 0;
        for (int code = 0; code < RACK_CODES; code++) {
            size += sub[code];
        }
        if (size == MAX_LEAVE) {
            total += 10 * (int64_t)leaves[leave_index(sub)];
            n++;
        }
        int code = 0;
        while (code < RACK_CODES && sub[code] == counts[code]) {
            sub[code] = 0;
            code++;
        }
        if (code == RACK_CODES) {
            break;
        }
        sub[code]++;
    }
    if (n == 0) {
        return 0;
    }
    return (int32_t)(total / n); /* C division rounds towards zero */
}

/* ---------------------------------------------------------------------------------------
 * Leaves: a leave table (int16 hundredths of a point per leave, indexed by leave_index), held
 * as the Python array's own buffer; a value counts ten thousandths of a point.
 */


static int Leaves_init(LeavesObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"values", NULL};
    PyObject *obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Leaves", kwlist, &obj)) {
        return -1;
    }
    if (self->has_view) {
        PyErr_SetString(PyExc_TypeError, "a Leaves table is made once");
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    if (view.itemsize != 2 || view.format == NULL || strcmp(view.format, "h") != 0 ||
        (size_t)view.len != size * sizeof(int16_t)) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "a leave table holds %zu int16 values (array('h'))", size);
        return -1;
    }
    /* Any int16 is a valid value (at most 327.67 points either way): nothing to check. */
    self->view = view;
    self->has_view = 1;
    self->values = (const int16_t *)view.buf;
    int16_t most = 0; /* (a leave too long for the table is valued 0 or a mean of values) */
    for (size_t i = 0; i < size; i++) {
        most = self->values[i] > most ? self->values[i] : most;
    }
    self->max_term = 10 * (int32_t)most;
    return 0;
}

static void Leaves_dealloc(LeavesObject *self) {
    if (self->has_view) {
        PyBuffer_Release(&self->view);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject LeavesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Leaves",
    .tp_doc = PyDoc_STR("Leaves(values): a leave table (array('h') of hundredths of a point), held, not copied."),
    .tp_basicsize = sizeof(LeavesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Leaves_init,
    .tp_dealloc = (destructor)Leaves_dealloc,
};

const char leave_index_doc[] = PyDoc_STR(
 "leave_index(counts) -> int: the index of a leave (27 counts) in a leave table, or -1.");

PyObject *py_leave_index(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer counts;
    if (PyObject_GetBuffer(arg, &counts, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (counts.len != RACK_CODES) {
        PyBuffer_Release(&counts);
        PyErr_SetString(PyExc_ValueError, "27 counts expected");
        return NULL;
    }
    uint8_t c[RACK_CODES];
    memcpy(c, counts.buf, RACK_CODES);
    PyBuffer_Release(&counts);
    return PyLong_FromLongLong(leave_index(c));
}

/* ---------------------------------------------------------------------------------------
 * Training: from the mean equity of each full rack seen in self-play to the value of each
 * leave (MAGPIE's rack-mean estimate; games/leavegen.py has the Python twin and the rest).
 */

/* C(n, k) as a double, for n <= MAX_TILE_COUNT and k <= MAX_LEAVE + 1; 0 when k > n. */
static double binom_d(int n, int k) {
    if (k < 0 || n < 0 || k > n) {
        return 0.0;
    }
    double r = 1.0;
    for (int i = 1; i <= k; i++) {
        r = r * (double)(n - k + i) / (double)i;
    }
    return r;
}

/* The multiset of `size` tiles whose rank (leave_index without the size offset) is `rank`. */
static int rack_of_rank(int64_t rank, int size, uint8_t *counts) {
    memset(counts, 0, RACK_CODES);
    for (int i = size; i >= 1; i--) {
        int b = i - 1;
        while (b + 1 < 40 && BINOM[b + 1][i] <= rank) {
            b++;
        }
        if (BINOM[b][i] > rank || b - (i - 1) >= RACK_CODES) {
            return -1;
        }
        rank -= BINOM[b][i];
        counts[b - (i - 1)]++;
    }
    return rank == 0 ? 0 : -1;
}

const char leave_sums_doc[] = PyDoc_STR(

             "leave_sums(ranks, sums, counts, tile_counts, rack_size) -> (num, den, support, overall)\n\n"
             "ranks (int32), sums and counts (int64): per full rack seen, its rank among the multisets\n"
             "of rack_size tiles, the sum of the equities (thousandths) of the moves made from it and\n"
             "how often it was seen. For every leave L of fewer tiles, over the racks R containing\n"
             "it, with w = the number of ways to draw R - L from a full bag without L: num[L] =\n"
             "sum of w * mean(R), den[L] = sum of w, support[L] = sum of counts(R) (doubles, as\n"
             "bytes, indexed by leave_index). overall = the mean of mean(R) weighted by the chance\n"
             "of drawing R from the full bag.");

/* The bag's 27 tile counts from a Python sequence into `tile_counts`. -1 with a TypeError set
 * when `obj` is not a sequence; else 0, with `*problem` set when a count is missing, not an
 * int or out of range (and left as it was otherwise). */
static int read_tile_counts(PyObject *obj, int *tile_counts, const char **problem) {
    PyObject *seq = PySequence_Fast(obj, "tile_counts must be a sequence of 27 ints");
    if (seq == NULL) {
        return -1;
    }
    const char *found = NULL;
    if (PySequence_Fast_GET_SIZE(seq) != RACK_CODES) {
        found = "tile_counts must hold 27 ints";
    }
    for (int c = 0; found == NULL && c < RACK_CODES; c++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, c));
        if (v < 0 || v > MAX_TILE_COUNT) {
            found = "a tile count out of range";
        }
        tile_counts[c] = (int)v;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        found = "tile_counts must be ints";
    }
    if (found != NULL) {
        *problem = found;
    }
    return 0;
}

PyObject *leave_sums(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer ranks, sums, counts;
    PyObject *tiles_obj;
    int rack_size;
    if (!PyArg_ParseTuple(args, "y*y*y*Oi:leave_sums", &ranks, &sums, &counts, &tiles_obj, &rack_size)) {
        return NULL;
    }
    const char *problem = NULL;
    size_t n = (size_t)ranks.len / 4;
    int tile_counts[RACK_CODES];
    if (ranks.len % 4 || sums.len != (Py_ssize_t)(n * 8) || counts.len != (Py_ssize_t)(n * 8)) {
        problem = "ranks (int32), sums and counts (int64) must be as long as each other";
    } else if (rack_size < 1 || rack_size > MAX_LEAVE + 1) {
        problem = "rack_size must be 1..7";
    } else {
        if (read_tile_counts(tiles_obj, tile_counts, &problem) < 0) {
            PyBuffer_Release(&ranks);
            PyBuffer_Release(&sums);
            PyBuffer_Release(&counts);
            return NULL;
        }
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    double *num = NULL, *den = NULL, *support = NULL;
    if (problem == NULL) {
        num = calloc(size, sizeof(double));
        den = calloc(size, sizeof(double));
        support = calloc(size, sizeof(double));
        if (num == NULL || den == NULL || support == NULL) {
            free(num);
            free(den);
            free(support);
            PyBuffer_Release(&ranks);
            PyBuffer_Release(&sums);
            PyBuffer_Release(&counts);
            return PyErr_NoMemory();
        }
        const int32_t *rk = (const int32_t *)ranks.buf;
        const int64_t *ct = (const int64_t *)counts.buf;
        for (size_t i = 0; problem == NULL && i < n; i++) {
            uint8_t r[RACK_CODES];
            if (rk[i] < 0 || rk[i] >= BINOM[26 + rack_size][rack_size] || ct[i] <= 0 ||
                rack_of_rank(rk[i], rack_size, r) < 0) {
                problem = "a rank out of range, or a rack seen no times";
            }
        }
    }
    double overall_num = 0.0, overall_den = 0.0;
    if (problem == NULL) {
        const int32_t *rk = (const int32_t *)ranks.buf;
        const int64_t *sm = (const int64_t *)sums.buf;
        const int64_t *ct = (const int64_t *)counts.buf;
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < n; i++) {
            uint8_t r[RACK_CODES], l[RACK_CODES];
            rack_of_rank(rk[i], rack_size, r);
            double mean = (double)sm[i] / (double)ct[i];
            double chance = 1.0;
            for (int c = 0; c < RACK_CODES; c++) {
                chance *= binom_d(tile_counts[c], r[c]);
            }
            overall_num += chance * mean;
            overall_den += chance;
            /* every sub-multiset L of R with fewer tiles than R (odometer over l[c] <= r[c]) */
            memset(l, 0, sizeof l);
            for (;;) {
                int tiles = 0;
                double w = 1.0;
                for (int c = 0; c < RACK_CODES; c++) {
                    tiles += l[c];
                    if (r[c]) {
                        w *= binom_d(tile_counts[c] - l[c], r[c] - l[c]);
                    }
                }
                if (tiles < rack_size && w > 0.0) {
                    int64_t index = leave_index(l);
                    num[index] += w * mean;
                    den[index] += w;
                    support[index] += (double)ct[i];
                }
                int c = 0;
                while (c < RACK_CODES && l[c] == r[c]) {
                    l[c] = 0;
                    c++;
                }
                if (c == RACK_CODES) {
                    break;
                }
                l[c]++;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ranks);
    PyBuffer_Release(&sums);
    PyBuffer_Release(&counts);
    if (problem != NULL) {
        free(num);
        free(den);
        free(support);
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    PyObject *result = Py_BuildValue("(y#y#y#d)", (const char *)num, (Py_ssize_t)(size * sizeof(double)),
                                     (const char *)den, (Py_ssize_t)(size * sizeof(double)), (const char *)support,
                                     (Py_ssize_t)(size * sizeof(double)),
                                     overall_den > 0.0 ? overall_num / overall_den : 0.0);
    free(num);
    free(den);
    free(support);
    return result;
}

const char leave_table_doc[] = PyDoc_STR(

             "leave_table(num, den, support, overall, tile_counts, rack_size, smoothing) -> bytes\n\n"
             "The leave table (int16 hundredths of a point, as bytes) from leave_sums' results: for\n"
             "each leave the bag can hold, by increasing size, raw = num/den - overall (0 without\n"
             "data), prior = the mean over its distinct tiles t of v(L - t) + v(t) (0 for one\n"
             "tile), v = (support * raw + smoothing * prior) / (support + smoothing).");

PyObject *leave_table(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer num_b, den_b, sup_b;
    double overall, smoothing;
    PyObject *tiles_obj;
    int rack_size;
    if (!PyArg_ParseTuple(args, "y*y*y*dOid:leave_table", &num_b, &den_b, &sup_b, &overall, &tiles_obj, &rack_size,
                          &smoothing)) {
        return NULL;
    }
    size_t size = (size_t)LEAVE_OFFSET[MAX_LEAVE + 1];
    const char *problem = NULL;
    int tile_counts[RACK_CODES];
    if ((size_t)num_b.len != size * sizeof(double) || (size_t)den_b.len != size * sizeof(double) ||
        (size_t)sup_b.len != size * sizeof(double)) {
        problem = "num, den and support must each hold one double a leave";
    } else if (rack_size < 1 || rack_size > MAX_LEAVE + 1 || !(smoothing >= 0.0)) {
        problem = "rack_size must be 1..7 and smoothing >= 0";
    } else {
        if (read_tile_counts(tiles_obj, tile_counts, &problem) < 0) {
            PyErr_Clear();
            problem = "tile_counts must be a sequence of 27 ints";
        }
    }
    double *v = NULL;
    int16_t *out = NULL;
    if (problem == NULL) {
        v = calloc(size, sizeof(double));
        out = calloc(size, sizeof(int16_t));
        if (v == NULL || out == NULL) {
            free(v);
            free(out);
            PyBuffer_Release(&num_b);
            PyBuffer_Release(&den_b);
            PyBuffer_Release(&sup_b);
            return PyErr_NoMemory();
        }
        const double *num = (const double *)num_b.buf, *den = (const double *)den_b.buf;
        const double *support = (const double *)sup_b.buf;
        Py_BEGIN_ALLOW_THREADS
        for (int tiles = 1; tiles < rack_size; tiles++) {
            for (int64_t index = LEAVE_OFFSET[tiles]; index < LEAVE_OFFSET[tiles + 1]; index++) {
                uint8_t l[RACK_CODES];
                rack_of_rank(index - LEAVE_OFFSET[tiles], tiles, l);
                int possible = 1;
                for (int c = 0; c < RACK_CODES; c++) {
                    possible &= l[c] <= tile_counts[c];
                }
                if (!possible) {
                    continue; /* not in this bag: stays 0 */
                }
                double raw = den[index] > 0.0 ? num[index] / den[index] - overall : 0.0;
                double prior = 0.0;
                if (tiles > 1) {
                    double parts = 0.0;
                    int n = 0;
                    for (int c = 0; c < RACK_CODES; c++) {
                        if (!l[c]) {
                            continue;
                        }
                        uint8_t one[RACK_CODES];
                        memset(one, 0, sizeof one);
                        one[c] = 1;
                        l[c]--;
                        parts += v[leave_index(l)] + v[leave_index(one)];
                        l[c]++;
                        n++;
                    }
                    prior = parts / n;
                }
                double weight = support[index] + smoothing;
                v[index] = weight > 0.0 ? (support[index] * raw + smoothing * prior) / weight : prior;
            }
        }
        for (size_t k = 0; k < size; k++) {
            double h = nearbyint(v[k] / 10.0); /* ties to even, as Python's round() */
            out[k] = (int16_t)(h > 32767.0 ? 32767 : h < -32767.0 ? -32767 : h);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&num_b);
    PyBuffer_Release(&den_b);
    PyBuffer_Release(&sup_b);
    if (problem != NULL) {
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(size * sizeof(int16_t)));
    free(v);
    free(out);
    return result;
}
