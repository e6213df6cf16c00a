/* The native GADDAG builder: the same algorithm as the pure-Python builder in build.py
 * (Daciuk et al.'s incremental minimization over sorted input, the forward DAWG first, then
 * the trie of rev(x) for every non-empty prefix x, one shared register), giving the same
 * node array: states are laid out in the order they are first registered, so a state's
 * offset is known when it is registered and children (always registered first) are stored
 * as offsets directly.
 *
 * Memory: the node array (4 bytes an entry), the register as an open-addressing table of
 * offsets (at most half full: 8 to 16 bytes a state), the prefixes of the words (16 bytes
 * each, twice while sorting) and the start of each word (4 bytes). Nothing depends on
 * Python objects, so the heavy part runs without the GIL.
 *
 * Nothing is trusted: every word is checked (1..MAX_LETTERS letters A-Z, strictly
 * increasing), sizes are checked against the caps the caller gives (at most 2^31), and
 * every count that indexes memory is bounded before use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FINAL_BIT ((uint32_t)1 << 27)
#define ARC_BITS (FINAL_BIT - 1)
#define SEP_BIT ((uint32_t)1)
#define LETTER_BITS (ARC_BITS & ~SEP_BIT)
#define MAX_LETTERS 64   /* longest word accepted; the Python side checks the same */
#define MAX_ARCS 27      /* separator + 26 letters */
#define MAX_CAP ((size_t)1 << 31)
#define HEAD_LETTERS 11  /* letters of rev(x) packed into a prefix's sort key */

typedef enum {
    OK = 0,
    ERR_NOMEM,
    ERR_ENTRIES,   /* the node array would exceed max_entries */
    ERR_PREFIXES,  /* more distinct prefixes than max_prefixes */
    ERR_INPUT,     /* a word that breaks the contract (see bad_word, bad_reason) */
    ERR_INTERNAL,  /* an invariant of the construction broke: a bug */
} Status;

typedef struct {
    uint64_t key;    /* the first HEAD_LETTERS letters of rev(x), 5 bits each, left-aligned
                        (0 past its end), then its length in the low 8 bits */
    uint32_t word;   /* x is the first letters of this word */
    uint32_t state;  /* offset of x's state in the DAWG */
} Prefix;

#define PREFIX_LEN(p) ((size_t)((p)->key & 0xFF))

typedef struct {
    /* input */
    const unsigned char *text;
    uint32_t *starts;  /* starts[i]: where word i begins; starts[count] = end of text + 1 */
    size_t count;
    /* output: the node array and the register */
    uint32_t *nodes;
    size_t len, cap, max_entries;
    uint32_t *table;  /* offset + 1 of a registered state, 0 = empty slot */
    size_t table_size, states;
    /* the open path of Daciuk's construction */
    uint32_t masks[MAX_LETTERS + 1];
    uint32_t kids[MAX_LETTERS + 1][MAX_ARCS];
    uint32_t nkids[MAX_LETTERS + 1];
    size_t depth;
    unsigned char prev[MAX_LETTERS];
    size_t prev_len;
    uint32_t prev_word;
    /* the DAWG state of every non-empty prefix, recorded while building the DAWG */
    int recording;
    Prefix *prefixes;
    size_t nprefixes, prefixes_cap, max_prefixes;
    /* what went wrong */
    size_t bad_word;
    const char *bad_reason;
} Builder;

/* realloc(old, count * size), NULL (and old kept) when the product would overflow. */
static void *resize(void *old, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        return NULL;
    }
    return realloc(old, count * size);
}

static unsigned popcount32(uint32_t v) {
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (unsigned)((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

static uint64_t hash_node(uint32_t mask, const uint32_t *kids, size_t n) {
    uint64_t h = (uint64_t)mask * 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < n; k++) {
        h ^= kids[k];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

static Status grow_table(Builder *b) {
    if (b->table_size > SIZE_MAX / 2) {
        return ERR_NOMEM;
    }
    size_t size = b->table_size * 2;
    uint32_t *table = calloc(size, sizeof(uint32_t)); /* calloc checks the product */
    if (table == NULL) {
        return ERR_NOMEM;
    }
    /* Every registered state is in the node array, in order: re-insert them all. */
    size_t off = 0;
    while (off < b->len) {
        uint32_t mask = b->nodes[off];
        size_t n = popcount32(mask & ARC_BITS);
        if (off + 1 + n > b->len) {
            free(table);
            return ERR_INTERNAL;
        }
        size_t i = (size_t)hash_node(mask, b->nodes + off + 1, n) & (size - 1);
        while (table[i] != 0) {
            i = (i + 1) & (size - 1);
        }
        table[i] = (uint32_t)(off + 1);
        off += 1 + n;
    }
    free(b->table);
    b->table = table;
    b->table_size = size;
    return OK;
}

/* The offset of the state (mask, kids), registering it if no equal state exists. */
static Status intern(Builder *b, uint32_t mask, const uint32_t *kids, size_t n, uint32_t *out) {
    if (n != popcount32(mask & ARC_BITS)) {
        return ERR_INTERNAL;
    }
    size_t slot_mask = b->table_size - 1;
    size_t i = (size_t)hash_node(mask, kids, n) & slot_mask;
    for (;;) {
        uint32_t t = b->table[i];
        if (t == 0) {
            break;
        }
        size_t off = (size_t)t - 1;
        /* an equal mask means an equal number of children */
        if (b->nodes[off] == mask && memcmp(b->nodes + off + 1, kids, n * sizeof(uint32_t)) == 0) {
            *out = (uint32_t)off;
            return OK;
        }
        i = (i + 1) & slot_mask;
    }
    size_t width = 1 + n;
    if (b->len + width > b->max_entries) {
        return ERR_ENTRIES;
    }
    if (b->len + width > b->cap) {
        size_t cap = b->cap + b->cap / 2 + width;
        if (cap > b->max_entries) {
            cap = b->max_entries;
        }
        uint32_t *nodes = resize(b->nodes, cap, sizeof(uint32_t));
        if (nodes == NULL) {
            return ERR_NOMEM;
        }
        b->nodes = nodes;
        b->cap = cap;
    }
    size_t off = b->len;
    b->nodes[off] = mask;
    memcpy(b->nodes + off + 1, kids, n * sizeof(uint32_t));
    b->len += width;
    b->table[i] = (uint32_t)(off + 1);
    b->states++;
    *out = (uint32_t)off;
    if (b->states * 2 > b->table_size) {
        return grow_table(b);
    }
    return OK;
}

static Status record_prefix(Builder *b, size_t length, uint32_t state) {
    if (b->nprefixes >= b->max_prefixes) {
        return ERR_PREFIXES;
    }
    if (b->nprefixes == b->prefixes_cap) {
        size_t cap = b->prefixes_cap + b->prefixes_cap / 2 + 1024;
        if (cap > b->max_prefixes) {
            cap = b->max_prefixes;
        }
        Prefix *grown = resize(b->prefixes, cap, sizeof(Prefix));
        if (grown == NULL) {
            return ERR_NOMEM;
        }
        b->prefixes = grown;
        b->prefixes_cap = cap;
    }
    const unsigned char *word = b->text + b->starts[b->prev_word];
    uint64_t head = 0;
    for (size_t j = 0; j < HEAD_LETTERS; j++) {
        uint64_t code = j < length ? (uint64_t)(word[length - 1 - j] - 'A' + 1) : 0;
        head = head << 5 | code;
    }
    Prefix *p = &b->prefixes[b->nprefixes++];
    p->key = head << 8 | (uint64_t)length;
    p->word = b->prev_word;
    p->state = state;
    return OK;
}

/* Register the open nodes below depth `target`, deepest first, hanging each on its parent. */
static Status close_to(Builder *b, size_t target) {
    for (size_t d = b->depth; d > target; d--) {
        uint32_t off;
        Status s = intern(b, b->masks[d], b->kids[d], b->nkids[d], &off);
        if (s != OK) {
            return s;
        }
        if (b->recording) {
            s = record_prefix(b, d, off);
            if (s != OK) {
                return s;
            }
        }
        uint32_t bit = (uint32_t)1 << (b->prev[d - 1] - 'A' + 1);
        if ((b->masks[d - 1] & bit) != 0 || b->nkids[d - 1] >= MAX_ARCS) {
            return ERR_INTERNAL;
        }
        b->masks[d - 1] |= bit;
        b->kids[d - 1][b->nkids[d - 1]++] = off;
    }
    b->depth = target;
    return OK;
}

/* Daciuk's step for the next string (greater than the previous one): the node ending it
 * gets `flags` and, if has_sep, the separator arc to `sep` as its first child. */
static Status add_string(Builder *b, const unsigned char *s, size_t n, uint32_t flags, int has_sep, uint32_t sep) {
    if (n == 0 || n > MAX_LETTERS) {
        return ERR_INTERNAL;
    }
    size_t limit = n < b->prev_len ? n : b->prev_len;
    size_t common = 0;
    while (common < limit && s[common] == b->prev[common]) {
        common++;
    }
    if (common == n || (common < b->prev_len && s[common] < b->prev[common])) {
        return ERR_INTERNAL; /* not strictly increasing */
    }
    Status st = close_to(b, common);
    if (st != OK) {
        return st;
    }
    for (size_t d = common + 1; d <= n; d++) {
        b->masks[d] = 0;
        b->nkids[d] = 0;
    }
    b->masks[n] = flags;
    if (has_sep) {
        b->kids[n][0] = sep;
        b->nkids[n] = 1;
    }
    b->depth = n;
    memcpy(b->prev + common, s + common, n - common);
    b->prev_len = n;
    return OK;
}

static Status finish(Builder *b, uint32_t *root) {
    Status s = close_to(b, 0);
    if (s != OK) {
        return s;
    }
    s = intern(b, b->masks[0], b->kids[0], b->nkids[0], root);
    b->masks[0] = 0;
    b->nkids[0] = 0;
    b->prev_len = 0;
    return s;
}

static size_t word_length(const Builder *b, size_t i) {
    return b->starts[i + 1] - b->starts[i] - 1;
}

/* Split the text at newlines and check every word: 1..MAX_LETTERS letters A-Z, each
 * greater than the one before. */
static Status split_words(Builder *b, size_t size) {
    size_t count = 0;
    if (size > 0) {
        count = 1;
        for (size_t i = 0; i < size; i++) {
            count += b->text[i] == '\n';
        }
    }
    b->starts = resize(NULL, count + 1, sizeof(uint32_t));
    if (b->starts == NULL) {
        return ERR_NOMEM;
    }
    b->count = count;
    size_t at = 0;
    for (size_t w = 0; w < count; w++) {
        b->starts[w] = (uint32_t)at;
        size_t end = at;
        while (end < size && b->text[end] != '\n') {
            unsigned char c = b->text[end];
            if (c < 'A' || c > 'Z') {
                b->bad_word = w;
                b->bad_reason = "a character other than A-Z";
                return ERR_INPUT;
            }
            end++;
        }
        size_t n = end - at;
        if (n == 0 || n > MAX_LETTERS) {
            b->bad_word = w;
            b->bad_reason = n == 0 ? "an empty word" : "a word longer than the limit";
            return ERR_INPUT;
        }
        if (w > 0) {
            const unsigned char *prev = b->text + b->starts[w - 1];
            size_t prev_n = at - 1 - b->starts[w - 1];
            size_t limit = n < prev_n ? n : prev_n;
            int order = memcmp(prev, b->text + at, limit);
            if (order > 0 || (order == 0 && prev_n >= n)) {
                b->bad_word = w;
                b->bad_reason = "a word not greater than the one before (the list must be sorted and unique)";
                return ERR_INPUT;
            }
        }
        at = end + 1;
    }
    b->starts[count] = (uint32_t)(size + 1);
    return OK;
}

/* rev(x) < rev(y), x and y being distinct prefixes. Different heads decide (the lengths
 * below them do not matter then); equal heads mean both are longer than the head (a
 * shorter one has a 0 where the other has a letter), so the rest is read letter by letter. */
static int prefix_less(const Builder *b, const Prefix *x, const Prefix *y) {
    if (x->key >> 8 != y->key >> 8) {
        return x->key < y->key;
    }
    size_t nx = PREFIX_LEN(x), ny = PREFIX_LEN(y);
    const unsigned char *wx = b->text + b->starts[x->word];
    const unsigned char *wy = b->text + b->starts[y->word];
    size_t limit = nx < ny ? nx : ny;
    for (size_t j = HEAD_LETTERS; j < limit; j++) {
        unsigned char cx = wx[nx - 1 - j], cy = wy[ny - 1 - j];
        if (cx != cy) {
            return cx < cy;
        }
    }
    return nx < ny;
}

/* Bottom-up merge sort of the prefixes by rev(x) (no global state, so no GIL is needed). */
static Status sort_prefixes(Builder *b) {
    size_t n = b->nprefixes;
    if (n < 2) {
        return OK;
    }
    Prefix *tmp = resize(NULL, n, sizeof(Prefix));
    if (tmp == NULL) {
        return ERR_NOMEM;
    }
    Prefix *src = b->prefixes, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                dst[k++] = prefix_less(b, &src[j], &src[i]) ? src[j++] : src[i++];
            }
            while (i < mid) {
                dst[k++] = src[i++];
            }
            while (j < hi) {
                dst[k++] = src[j++];
            }
        }
        Prefix *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != b->prefixes) {
        memcpy(b->prefixes, src, n * sizeof(Prefix));
    }
    free(tmp);
    return OK;
}

static Status build(Builder *b, size_t size, uint32_t *root, uint32_t *dawg_root) {
    Status s = split_words(b, size);
    if (s != OK) {
        return s;
    }
    b->cap = 1 << 16;
    if (b->cap > b->max_entries) {
        b->cap = b->max_entries;
    }
    b->nodes = resize(NULL, b->cap, sizeof(uint32_t));
    b->table_size = 1 << 16;
    b->table = calloc(b->table_size, sizeof(uint32_t));
    if (b->nodes == NULL || b->table == NULL) {
        return ERR_NOMEM;
    }

    /* 1. The forward DAWG, recording the state of every non-empty prefix. */
    b->recording = 1;
    for (size_t w = 0; w < b->count; w++) {
        b->prev_word = w == 0 ? 0 : (uint32_t)(w - 1); /* the word whose path is open */
        s = add_string(b, b->text + b->starts[w], word_length(b, w), FINAL_BIT, 0, 0);
        if (s != OK) {
            return s;
        }
    }
    b->prev_word = b->count == 0 ? 0 : (uint32_t)(b->count - 1);
    s = finish(b, dawg_root);
    if (s != OK) {
        return s;
    }
    b->recording = 0;

    /* 2. The left part: rev(x) for every non-empty prefix x, in sorted order. */
    s = sort_prefixes(b);
    if (s != OK) {
        return s;
    }
    unsigned char reversed[MAX_LETTERS];
    for (size_t k = 0; k < b->nprefixes; k++) {
        const Prefix *p = &b->prefixes[k];
        size_t n = PREFIX_LEN(p);
        if (n == 0 || n > MAX_LETTERS || p->word >= b->count || n > word_length(b, p->word) || p->state >= b->len) {
            return ERR_INTERNAL;
        }
        const unsigned char *word = b->text + b->starts[p->word];
        for (size_t j = 0; j < n; j++) {
            reversed[j] = word[n - 1 - j];
        }
        uint32_t mask = b->nodes[p->state];
        int continues = (mask & LETTER_BITS) != 0;
        uint32_t flags = (mask & FINAL_BIT) | (continues ? SEP_BIT : 0);
        s = add_string(b, reversed, n, flags, continues, p->state);
        if (s != OK) {
            return s;
        }
    }
    return finish(b, root);
}

/* Everything but the node array, freed before the array is copied out (a lower peak). */
static void release_scratch(Builder *b) {
    free(b->starts);
    free(b->table);
    free(b->prefixes);
    b->starts = NULL;
    b->table = NULL;
    b->prefixes = NULL;
}

static void release(Builder *b) {
    release_scratch(b);
    free(b->nodes);
    b->nodes = NULL;
}

static PyObject *LimitError;

PyDoc_STRVAR(build_doc,
             "build(words, max_entries, max_prefixes) -> (nodes, root, dawg_root, states, arcs)\n\n"
             "The minimized GADDAG of ``words``: a bytes object of sorted, unique words of letters A-Z joined\n"
             "by newlines. ``nodes`` is the node array as native uint32 bytes. Raises LimitError(what,\n"
             "limit) when the node array would exceed max_entries entries or the words have more than\n"
             "max_prefixes distinct non-empty prefixes; ValueError for a word that breaks the contract.");

static PyObject *py_build(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *words; /* bytes, not any buffer: immutable while the GIL is released */
    Py_ssize_t max_entries, max_prefixes;
    if (!PyArg_ParseTuple(args, "O!nn:build", &PyBytes_Type, &words, &max_entries, &max_prefixes)) {
        return NULL;
    }
    if (max_entries < 1 || (size_t)max_entries > MAX_CAP || max_prefixes < 0 || (size_t)max_prefixes > MAX_CAP) {
        return PyErr_Format(PyExc_ValueError, "limits must be 1..%zu entries and 0..%zu prefixes", MAX_CAP, MAX_CAP);
    }
    Py_ssize_t size = PyBytes_GET_SIZE(words);
    if ((size_t)size >= MAX_CAP) {
        return PyErr_Format(PyExc_ValueError, "word text of %zd bytes: the limit is %zu", size, MAX_CAP - 1);
    }
    Builder *b = calloc(1, sizeof(Builder));
    if (b == NULL) {
        return PyErr_NoMemory();
    }
    Py_INCREF(words);
    b->text = (const unsigned char *)PyBytes_AS_STRING(words);
    b->max_entries = (size_t)max_entries;
    b->max_prefixes = (size_t)max_prefixes;
    uint32_t root = 0, dawg_root = 0;
    Status s;
    Py_BEGIN_ALLOW_THREADS
    s = build(b, (size_t)size, &root, &dawg_root);
    Py_END_ALLOW_THREADS
    Py_DECREF(words);
    release_scratch(b);

    PyObject *result = NULL;
    switch (s) {
    case OK: {
        if (b->len > (size_t)PY_SSIZE_T_MAX / sizeof(uint32_t)) {
            PyErr_NoMemory();
            break;
        }
        PyObject *nodes = PyBytes_FromStringAndSize((const char *)b->nodes, (Py_ssize_t)(b->len * sizeof(uint32_t)));
        if (nodes != NULL) {
            result = Py_BuildValue("(Nkknn)", nodes, (unsigned long)root, (unsigned long)dawg_root,
                                   (Py_ssize_t)b->states, (Py_ssize_t)(b->len - b->states));
        }
        break;
    }
    case ERR_NOMEM:
        PyErr_NoMemory();
        break;
    case ERR_ENTRIES:
    case ERR_PREFIXES: {
        int entries = s == ERR_ENTRIES;
        PyObject *limit = Py_BuildValue("(sn)", entries ? "entries" : "prefixes", entries ? max_entries : max_prefixes);
        if (limit != NULL) {
            PyErr_SetObject(LimitError, limit);
            Py_DECREF(limit);
        }
        break;
    }
    case ERR_INPUT:
        PyErr_Format(PyExc_ValueError, "word %zu: %s", b->bad_word + 1, b->bad_reason);
        break;
    default:
        PyErr_SetString(PyExc_SystemError, "GADDAG builder: an internal invariant failed");
        break;
    }
    release(b);
    free(b);
    return result;
}

static PyMethodDef methods[] = {
    {"build", py_build, METH_VARARGS, build_doc},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module) {
    LimitError = PyErr_NewExceptionWithDoc("solver_cli.lexicon._build_c.LimitError",
                                           "A size limit of the build was reached: args (what, limit).",
                                           NULL, NULL);
    if (LimitError == NULL) {
        return -1;
    }
    if (PyModule_AddObjectRef(module, "LimitError", LimitError) < 0) {
        return -1;
    }
    return PyModule_AddIntConstant(module, "MAX_LETTERS", MAX_LETTERS);
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "solver_cli.lexicon._build_c",
    "The native GADDAG builder (the pure-Python twin is solver_cli.lexicon.build).",
    0,
    methods,
    slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__build_c(void) {
    return PyModuleDef_Init(&module_def);
}
