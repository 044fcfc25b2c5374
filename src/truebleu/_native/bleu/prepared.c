/* truebleu core: the Prepared type (see bleu/prepared.h). */
#include "bleu/prepared.h"

#include <stdlib.h>

void tb_prepared_free_segs(tb_seg **segs, Py_ssize_t n)
{
    if (!segs)
        return;
    for (Py_ssize_t i = 0; i < n; i++)
        free(segs[i]);
    free(segs);
}

PyObject *tb_prepared_new(PyTypeObject *type, tb_seg **segs, Py_ssize_t n, int mode, int lowercase)
{
    PreparedObject *self = PyObject_New(PreparedObject, type);
    if (!self) {
        tb_prepared_free_segs(segs, n);
        return NULL;
    }
    self->segs = segs;
    self->n = n;
    self->mode = mode;
    self->lowercase = lowercase;
    self->nbytes = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        self->nbytes += sizeof(tb_seg) + segs[k]->vcap * sizeof(tb_slot) + (segs[k]->nseq + segs[k]->ntok) * 4 +
                        segs[k]->nvocab * sizeof(tb_tok) + segs[k]->nbytes + TB_BYTES_PAD;
    return (PyObject *)self;
}

static void Prepared_dealloc(PyObject *obj)
{
    PreparedObject *self = (PreparedObject *)obj;
    PyTypeObject *type = Py_TYPE(obj);
    tb_prepared_free_segs(self->segs, self->n);
    type->tp_free(obj);
    Py_DECREF(type);  /* an instance of a heap type holds a reference to it */
}

static Py_ssize_t Prepared_len(PyObject *self) { return ((PreparedObject *)self)->n; }

/* tokens(index, seq): the token strings of sequence `seq` of segment `index` (for tests) */
static PyObject *Prepared_tokens(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"index", "seq", NULL};
    PreparedObject *self = (PreparedObject *)obj;
    Py_ssize_t index, seq;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nn", (char **)kwlist, &index, &seq))
        return NULL;
    if (index < 0 || index >= self->n) {
        PyErr_SetString(PyExc_IndexError, "segment index out of range");
        return NULL;
    }
    const tb_seg *s = self->segs[index];
    if (seq < 0 || seq >= (Py_ssize_t)s->nseq) {
        PyErr_SetString(PyExc_IndexError, "sequence index out of range");
        return NULL;
    }
    size_t start = 0;
    for (Py_ssize_t k = 0; k < seq; k++)
        start += s->seq_len[k];
    PyObject *out = PyList_New(s->seq_len[seq]);
    if (!out)
        return NULL;
    for (uint32_t k = 0; k < s->seq_len[seq]; k++) {
        const tb_tok *t = &s->vocab[s->ids[start + k]];
        PyObject *str = PyUnicode_DecodeUTF8(s->bytes + t->off, t->len, "surrogatepass");
        if (!str) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, str);
    }
    return out;
}

static PyObject *Prepared_get_nbytes(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((PreparedObject *)self)->nbytes);
}

static PyObject *Prepared_get_mode(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((PreparedObject *)self)->mode);
}

static PyObject *Prepared_get_lowercase(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((PreparedObject *)self)->lowercase);
}

static PyObject *Prepared_get_num_refs(PyObject *obj, void *closure)
{
    /* references per segment: the common count, or -1 when it varies (sacreBLEU) */
    PreparedObject *self = (PreparedObject *)obj;
    (void)closure;
    long common = self->n ? (long)self->segs[0]->nseq : -1;  /* none: -1, as sacreBLEU */
    for (Py_ssize_t k = 1; k < self->n; k++)
        if ((long)self->segs[k]->nseq != common)
            return PyLong_FromLong(-1);
    return PyLong_FromLong(common);
}

static PyMethodDef Prepared_methods[] = {
    {"tokens", (PyCFunction)(void (*)(void))Prepared_tokens, METH_VARARGS | METH_KEYWORDS,
     "tokens(index, seq) -> list of the tokens of one sequence of one segment"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Prepared_getset[] = {
    {"nbytes", Prepared_get_nbytes, NULL, "memory held by the segments", NULL},
    {"mode", Prepared_get_mode, NULL, "tokenizer mode number", NULL},
    {"lowercase", Prepared_get_lowercase, NULL, "whether text was lowercased", NULL},
    {"num_refs", Prepared_get_num_refs, NULL, "references per segment (-1: varies)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Prepared_slots[] = {
    {Py_tp_doc, (void *)"Tokenized segments (token ids over a per-segment vocabulary), built by prepare()."},
    {Py_tp_dealloc, (void *)Prepared_dealloc},
    {Py_sq_length, (void *)Prepared_len},
    {Py_tp_methods, Prepared_methods},
    {Py_tp_getset, Prepared_getset},
    {0, NULL},
};

/* As the static type it replaces: immutable, not subclassable, made by the
 * core only (prepare(), prepare_streams()), never by calling the type. */
static PyType_Spec Prepared_spec = {
    .name = "truebleu._native_core.Prepared",
    .basicsize = sizeof(PreparedObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Prepared_slots,
};

PyObject *tb_prepared_type_new(PyObject *module)
{
    return PyType_FromModuleAndSpec(module, &Prepared_spec, NULL);
}
