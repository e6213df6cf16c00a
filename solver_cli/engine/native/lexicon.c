/* The lexicon: a GADDAG node array, checked once and held. */
#include "scrab.h"

/* ---------------------------------------------------------------------------------------
 * Lexicon: the node array, checked once and held (its buffer stays exported, so the array
 * cannot be resized or freed while a Lexicon uses it).
 */


/* The check below is a chain from one state's header to the next state's offset, through a
 * popcount. Where GCC can build clones chosen at load time (glibc's ifunc on x86-64), a
 * clone that uses the popcnt instruction runs on processors that have it: 3.0 instead of
 * 3.9 ms for kjxqz's 1.3 million entries, on every load of a cached lexicon. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define WITH_POPCNT_CLONE __attribute__((target_clones("popcnt", "default")))
#define CHECK_POPCOUNT(v) ((unsigned)__builtin_popcount(v))
#else
#define WITH_POPCNT_CLONE
#define CHECK_POPCOUNT(v) popcount32(v)
#endif

/* NULL when every read the generator can make from `nodes` stays inside it; else why not.
 * One pass, relying on the builder's order: a state is laid out after all its children, so
 * each child offset must be below its parent's and already known as the start of a state.
 * That also rules out cycles: every walk through the array goes strictly downwards. */
WITH_POPCNT_CLONE
static const char *check_nodes(const uint32_t *nodes, size_t len, uint64_t root, uint64_t dawg_root) {
    if (len == 0) {
        return "the node array is empty";
    }
    if (len > ((size_t)1 << 31)) {
        return "the node array is too long";
    }
    uint8_t *is_state = calloc((len + 7) / 8, 1);
    if (is_state == NULL) {
        return "out of memory";
    }
    const char *problem = NULL;
    size_t off = 0;
    while (off < len) {
        uint32_t header = nodes[off];
        if (header & ~(FINAL_BIT | ARC_BITS)) {
            problem = "a state header has bits above the final bit";
            break;
        }
        size_t arcs = CHECK_POPCOUNT(header & ARC_BITS);
        if (arcs > len - off - 1) {
            problem = "a state's arcs run past the end of the array";
            break;
        }
        for (size_t k = 1; k <= arcs; k++) {
            uint32_t child = nodes[off + k];
            if (child >= off || !(is_state[child >> 3] & (1u << (child & 7)))) {
                problem = "an arc points to no earlier state";
                break;
            }
        }
        if (problem != NULL) {
            break;
        }
        is_state[off >> 3] |= (uint8_t)(1u << (off & 7));
        off += 1 + arcs;
    }
    if (problem == NULL) {
        if (root >= len || !(is_state[root >> 3] & (1u << (root & 7))) || dawg_root >= len ||
            !(is_state[dawg_root >> 3] & (1u << (dawg_root & 7)))) {
            problem = "a root is not a state";
        }
    }
    free(is_state);
    return problem;
}

static int Lexicon_init(LexiconObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"nodes", "root", "dawg_root", NULL};
    PyObject *nodes;
    unsigned long long root, dawg_root;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OKK:Lexicon", kwlist, &nodes, &root, &dawg_root)) {
        return -1;
    }
    if (self->has_view) {
        PyErr_SetString(PyExc_TypeError, "a Lexicon is made once");
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(nodes, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    if (view.itemsize != 4 || view.format == NULL || (strcmp(view.format, "I") != 0 && strcmp(view.format, "=I") != 0 &&
                                                       strcmp(view.format, "<I") != 0 && strcmp(view.format, "L") != 0)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "nodes must be a buffer of uint32 (array('I'))");
        return -1;
    }
    if (view.itemsize != sizeof(uint32_t)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "nodes must hold 4-byte items");
        return -1;
    }
    size_t len = (size_t)view.len / 4;
    const char *problem = check_nodes((const uint32_t *)view.buf, len, root, dawg_root);
    if (problem != NULL) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "not a usable GADDAG: %s", problem);
        return -1;
    }
    self->view = view;
    self->has_view = 1;
    self->nodes = (const uint32_t *)view.buf;
    self->len = len;
    self->root = (uint32_t)root;
    self->dawg_root = (uint32_t)dawg_root;
    return 0;
}

static void Lexicon_dealloc(LexiconObject *self) {
    if (self->has_view) {
        PyBuffer_Release(&self->view);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject LexiconType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "solver_cli.engine._movegen_c.Lexicon",
    .tp_doc = PyDoc_STR("Lexicon(nodes, root, dawg_root): a GADDAG node array, checked once and held."),
    .tp_basicsize = sizeof(LexiconObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Lexicon_init,
    .tp_dealloc = (destructor)Lexicon_dealloc,
};
