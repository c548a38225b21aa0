/* A prototype, not part of the engine: the Double Buffer with its state in columns (issue 32 item 1).
 *
 * A ``Table`` keeps buffered fields as columns, each in three buffers: previous,
 * current (committed) and next (pending). float64 columns for numbers, object columns
 * for the rest. A world has one motion table (x, y, angle of every entity, row = update
 * order) and one table per class layout for the class's own fields.
 *
 * Entities are instances of a C base type whose struct holds the entity's table and row.
 * Four ways for ``self.x`` to reach a column, measured against each other (see run.py):
 *
 *   getset     ``GetsetBody``: x, y and angle are getset descriptors of the base type; a
 *              read boxes the double of the right buffer.
 *   descriptor ``GetsetBody`` with a ``Column`` descriptor (a C descriptor type) for each
 *              field put on the Python class, so the read skips the getset's type check.
 *   slots      ``SlotBody``: reads are CPython's own member descriptors over three object
 *              slots holding what the reader must see (specialised as LOAD_ATTR_SLOT);
 *              writes go through the type's ``tp_setattro``, which knows who is updating.
 *              The slots show the objects the entities wrote (kept aside in ``held``
 *              while the writer's update runs, published by the commit).
 *   arena      ``SlotBody`` over a table that owns the float objects its slots show, in
 *              blocks that never move; the commit and a rollback change those floats'
 *              values in place where nobody else holds them (a reference count test),
 *              so neither touches an entity.
 *
 * In all four: the table knows which entity is updating (``updating``, set by the
 * ``Runner`` the world iterates); an entity's own reads see its pending value, everyone
 * else's the committed one; a write to another entity during an update is refused at the
 * line that makes it; writes outside an update (between ticks, from systems) are
 * committed at once. The commit rotates the three buffers (a swap of pointers) and
 * copies current into the new next; a checkpoint copies columns.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030C0000
#define MEMBER_OBJECT Py_T_OBJECT_EX
#define MEMBER_READONLY Py_READONLY
#else
#define MEMBER_OBJECT T_OBJECT_EX
#define MEMBER_READONLY READONLY
#endif

enum { PREV = 0, CUR = 1, NEXT = 2 };
#define MAXCOLS 16
#define MOTION 3

/* ------------------------------------------------------------------------------------ */
/* Table                                                                                  */

typedef struct {
    PyObject_HEAD
    Py_ssize_t count, capacity;
    int nnum, nobj;
    int nursery;                      /* rows of entities not in a world yet: freed on spawn */
    double *num[3][MAXCOLS];
    PyObject **obj[3][MAXCOLS];
    PyObject *updating;               /* borrowed: whose update runs (the motion table's) */
    Py_ssize_t *free_rows;
    Py_ssize_t nfree, free_room;
    /* slots design: rows written during this tick, and which motion fields (a bit each);
     * held[f][row]: while the entity updates, the committed object its slot showed; after
     * it, until the commit, the pending object it wrote */
    PyObject **held[MOTION];
    /* arena design: the float objects the slots show, owned by the table, in blocks that
     * never move; detached[row] has bit f set where the slot shows a float of its own */
    int arena;
    PyFloatObject **blocks[MOTION];
    Py_ssize_t nblocks;
    unsigned char *detached;
    Py_ssize_t *changed;
    unsigned char *changed_bits;
    Py_ssize_t nchanged, changed_room;
} Table;

typedef struct {
    PyObject_HEAD
    PyObject *vis[MOTION];            /* slots design: what a reader of x, y, angle sees */
    Table *motion;
    Py_ssize_t row;
    Table *own;
    Py_ssize_t own_row;
    unsigned char dirty;              /* slots design: motion fields written in its update */
} Body;

/* Entities are reached through a list of pointers, which the hardware cannot prefetch:
 * ask for the one AHEAD places on, then for the objects its slots point to. */
#define AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* Arena design: the table holds each of its floats HOLD times, so none is ever freed by its
 * reference count; HOLD + 1 means only the slot that shows it holds it too, and then its
 * value may change in place (nobody else can see it change). */
#define BLOCK 1024
#define HOLD ((Py_ssize_t)1 << 20)
#define ARENA(t, f, row) (&(t)->blocks[f][(row) / BLOCK][(row) % BLOCK])

static PyTypeObject TableType, GetsetBodyType, SlotBodyType, ColumnType, RunnerType;
static Table *nursery = NULL;         /* the motion rows of entities not spawned yet */
static PyObject *on_foreign = NULL;   /* (writer, entity, field, where) -> the exception to raise */
static PyObject *s_x, *s_y, *s_angle;
static const char *motion_names[MOTION] = {"x", "y", "angle"};

static PyObject *body_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);
/* An entity of the prototype: its class's tp_new is the base's (the cheap test), or a subtype. */
#define IS_BODY(o) (Py_TYPE(o)->tp_new == body_new || PyObject_TypeCheck((o), &GetsetBodyType) \
                    || PyObject_TypeCheck((o), &SlotBodyType))

static int
table_room(Table *t, Py_ssize_t need)
{
    if (need <= t->capacity) {
        return 0;
    }
    Py_ssize_t room = t->capacity ? t->capacity : 64;
    while (room < need) {
        room *= 2;
    }
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nnum; c++) {
            double *grown = PyMem_Realloc(t->num[b][c], sizeof(double) * (size_t)room);
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            t->num[b][c] = grown;
        }
        for (int c = 0; c < t->nobj; c++) {
            PyObject **grown = PyMem_Realloc(t->obj[b][c], sizeof(PyObject *) * (size_t)room);
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t r = t->capacity; r < room; r++) {
                grown[r] = NULL;
            }
            t->obj[b][c] = grown;
        }
    }
    if (t->nnum >= MOTION) {
        for (int f = 0; f < MOTION; f++) {
            PyObject **grown = PyMem_Realloc(t->held[f], sizeof(PyObject *) * (size_t)room);
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t r = t->capacity; r < room; r++) {
                grown[r] = NULL;
            }
            t->held[f] = grown;
        }
    }
    if (t->arena) {
        Py_ssize_t blocks = (room + BLOCK - 1) / BLOCK;
        for (int f = 0; f < MOTION; f++) {
            PyFloatObject **grown = PyMem_Realloc(t->blocks[f], sizeof(PyFloatObject *) * (size_t)blocks);
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            t->blocks[f] = grown;
            for (Py_ssize_t b = t->nblocks; b < blocks; b++) {
                PyFloatObject *block = PyMem_Malloc(sizeof(PyFloatObject) * BLOCK);
                if (block == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                for (int i = 0; i < BLOCK; i++) {
                    PyObject_Init((PyObject *)&block[i], &PyFloat_Type);
                    block[i].ob_fval = 0.0;
                    Py_SET_REFCNT((PyObject *)&block[i], HOLD);
                }
                grown[b] = block;
            }
        }
        t->nblocks = blocks;
        unsigned char *detached = PyMem_Realloc(t->detached, (size_t)room);
        if (detached == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->detached = detached;
    }
    Py_ssize_t *changed = PyMem_Realloc(t->changed, sizeof(Py_ssize_t) * (size_t)room);
    unsigned char *bits = PyMem_Realloc(t->changed_bits, (size_t)room);
    if (changed == NULL || bits == NULL) {
        if (changed) t->changed = changed;
        if (bits) t->changed_bits = bits;
        PyErr_NoMemory();
        return -1;
    }
    t->changed = changed;
    t->changed_bits = bits;
    t->capacity = room;
    return 0;
}

/* A new row, every buffer 0.0 / None; -1 on failure. */
static Py_ssize_t
table_new_row(Table *t)
{
    Py_ssize_t row;
    if (t->nfree > 0) {
        row = t->free_rows[--t->nfree];
    }
    else {
        if (table_room(t, t->count + 1) < 0) {
            return -1;
        }
        row = t->count++;
    }
    if (t->arena) {
        t->detached[row] = 0;
        for (int f = 0; f < MOTION; f++) {
            ARENA(t, f, row)->ob_fval = 0.0;
        }
    }
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nnum; c++) {
            t->num[b][c][row] = 0.0;
        }
        for (int c = 0; c < t->nobj; c++) {
            Py_INCREF(Py_None);
            Py_XSETREF(t->obj[b][c][row], Py_None);
        }
    }
    return row;
}

static void
table_free_row(Table *t, Py_ssize_t row)
{
    if (t->nfree == t->free_room) {
        Py_ssize_t room = t->free_room ? t->free_room * 2 : 64;
        Py_ssize_t *grown = PyMem_Realloc(t->free_rows, sizeof(Py_ssize_t) * (size_t)room);
        if (grown == NULL) {
            return; /* the row leaks: harmless in a prototype */
        }
        t->free_rows = grown;
        t->free_room = room;
    }
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nobj; c++) {
            Py_CLEAR(t->obj[b][c][row]);
        }
    }
    t->free_rows[t->nfree++] = row;
}

static PyObject *
table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    int nnum, nobj, is_nursery = 0;
    int arena = 0;
    static char *names[] = {"numbers", "objects", "nursery", "arena", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ii|pp", names, &nnum, &nobj, &is_nursery, &arena)) {
        return NULL;
    }
    if (nnum < 0 || nobj < 0 || nnum > MAXCOLS || nobj > MAXCOLS) {
        PyErr_Format(PyExc_ValueError, "Table: at most %d columns of each kind", MAXCOLS);
        return NULL;
    }
    Table *t = (Table *)type->tp_alloc(type, 0);
    if (t == NULL) {
        return NULL;
    }
    t->nnum = nnum;
    t->nobj = nobj;
    t->nursery = is_nursery;
    t->arena = arena && nnum >= MOTION && !is_nursery;
    return (PyObject *)t;
}

static int
table_traverse(Table *t, visitproc visit, void *arg)
{
    for (int f = 0; f < MOTION && t->nnum >= MOTION; f++) {
        for (Py_ssize_t r = 0; r < t->count; r++) {
            Py_VISIT(t->held[f][r]);
        }
    }
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nobj; c++) {
            for (Py_ssize_t r = 0; r < t->count; r++) {
                Py_VISIT(t->obj[b][c][r]);
            }
        }
    }
    return 0;
}

static int
table_clear(Table *t)
{
    for (int f = 0; f < MOTION && t->nnum >= MOTION; f++) {
        for (Py_ssize_t r = 0; r < t->count; r++) {
            Py_CLEAR(t->held[f][r]);
        }
    }
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nobj; c++) {
            for (Py_ssize_t r = 0; r < t->count; r++) {
                Py_CLEAR(t->obj[b][c][r]);
            }
        }
    }
    return 0;
}

static void
table_dealloc(Table *t)
{
    PyObject_GC_UnTrack(t);
    table_clear(t);
    for (int b = 0; b < 3; b++) {
        for (int c = 0; c < t->nnum; c++) {
            PyMem_Free(t->num[b][c]);
        }
        for (int c = 0; c < t->nobj; c++) {
            PyMem_Free(t->obj[b][c]);
        }
    }
    for (int f = 0; f < MOTION; f++) {
        PyMem_Free(t->held[f]);
        for (Py_ssize_t b = 0; b < t->nblocks; b++) {
            int lent = 0;
            for (int i = 0; i < BLOCK && !lent; i++) {
                lent = Py_REFCNT((PyObject *)&t->blocks[f][b][i]) != HOLD;
            }
            if (!lent) { /* a float still held somewhere keeps its block: leaked, never freed under it */
                PyMem_Free(t->blocks[f][b]);
            }
        }
        PyMem_Free(t->blocks[f]);
    }
    PyMem_Free(t->detached);
    PyMem_Free(t->free_rows);
    PyMem_Free(t->changed);
    PyMem_Free(t->changed_bits);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Table **
table_slot(Body *body, int own, Py_ssize_t **row)
{
    *row = own ? &body->own_row : &body->row;
    return own ? &body->own : &body->motion;
}

/* Arena design: make ``body``'s slot f show ``number``: in place in its arena float when
 * only the slot holds it, else through a float of its own (the row is then detached
 * until its arena float is free again). ``value`` (may be NULL) is the object written. */
static int
arena_show(Table *t, Body *body, int f, Py_ssize_t row, double number, PyObject *value)
{
    PyFloatObject *mine = ARENA(t, f, row);
    unsigned char bit = (unsigned char)(1 << f);
    if (!(t->detached[row] & bit) && Py_REFCNT((PyObject *)mine) == HOLD + 1
        && body->vis[f] == (PyObject *)mine) {
        mine->ob_fval = number;
        return 0;
    }
    if (Py_REFCNT((PyObject *)mine) == HOLD) { /* free again: attach */
        mine->ob_fval = number;
        Py_INCREF(mine);
        Py_XSETREF(body->vis[f], (PyObject *)mine);
        t->detached[row] &= (unsigned char)~bit;
        return 0;
    }
    PyObject *own = value != NULL && PyFloat_CheckExact(value) ? Py_NewRef(value) : PyFloat_FromDouble(number);
    if (own == NULL) {
        return -1;
    }
    Py_XSETREF(body->vis[f], own);
    t->detached[row] |= bit;
    return 0;
}

/* take(entity, own): move the entity's row (motion, or its own fields) into this table,
 * every buffer holding its current values; its old row is freed if it was a nursery's. */
static PyObject *
table_take(Table *t, PyObject *args)
{
    PyObject *entity;
    int own;
    if (!PyArg_ParseTuple(args, "Op", &entity, &own)) {
        return NULL;
    }
    if (!(IS_BODY(entity))) {
        PyErr_SetString(PyExc_TypeError, "Table.take: not an entity of the prototype");
        return NULL;
    }
    Body *body = (Body *)entity;
    Py_ssize_t *rowp;
    Table **tablep = table_slot(body, own, &rowp);
    Table *old = *tablep;
    if (old != NULL && (old->nnum != t->nnum || old->nobj != t->nobj)) {
        PyErr_SetString(PyExc_ValueError, "Table.take: the entity's columns are not this table's");
        return NULL;
    }
    Py_ssize_t row = table_new_row(t);
    if (row < 0) {
        return NULL;
    }
    if (old != NULL) {
        Py_ssize_t from = *rowp;
        for (int c = 0; c < t->nnum; c++) {
            double value = old->num[CUR][c][from];
            t->num[PREV][c][row] = t->num[CUR][c][row] = t->num[NEXT][c][row] = value;
        }
        for (int c = 0; c < t->nobj; c++) {
            for (int b = 0; b < 3; b++) {
                PyObject *value = old->obj[CUR][c][from];
                Py_INCREF(value);
                Py_XSETREF(t->obj[b][c][row], value);
            }
        }
        if (old->nursery) {
            table_free_row(old, from);
        }
    }
    if (t->arena && !own) {
        for (int f = 0; f < MOTION; f++) {
            PyFloatObject *mine = ARENA(t, f, row);
            mine->ob_fval = t->num[CUR][f][row];
            Py_INCREF(mine);
            Py_XSETREF(body->vis[f], (PyObject *)mine);
        }
    }
    Py_INCREF(t);
    *tablep = t;
    *rowp = row;
    Py_XDECREF(old);
    return PyLong_FromSsize_t(row);
}

/* The commit: previous <- current <- next by rotating pointers, then the new next (the
 * spent previous buffer) becomes a copy of current. For the slots design, the slot of
 * every entity that wrote shows its new committed value. */
static PyObject *
table_commit(Table *t, PyObject *entities)
{
    for (int c = 0; c < t->nnum; c++) {
        double *spent = t->num[PREV][c];
        t->num[PREV][c] = t->num[CUR][c];
        t->num[CUR][c] = t->num[NEXT][c];
        t->num[NEXT][c] = spent;
        memcpy(spent, t->num[CUR][c], sizeof(double) * (size_t)t->count);
    }
    for (int c = 0; c < t->nobj; c++) {
        PyObject **spent = t->obj[PREV][c];
        PyObject **now = t->obj[NEXT][c];
        t->obj[PREV][c] = t->obj[CUR][c];
        t->obj[CUR][c] = now;
        t->obj[NEXT][c] = spent;
        for (Py_ssize_t r = 0; r < t->count; r++) {
            if (spent[r] != now[r]) {
                Py_XINCREF(now[r]);
                Py_XSETREF(spent[r], now[r]);
            }
        }
    }
    if (entities != Py_None) {
        if (!PyList_CheckExact(entities)) {
            PyErr_SetString(PyExc_TypeError, "Table.commit: entities must be a list or None");
            return NULL;
        }
        Py_ssize_t size = PyList_GET_SIZE(entities);
        for (Py_ssize_t i = 0; i < t->nchanged; i++) {
            Py_ssize_t row = t->changed[i];
            if (i + AHEAD < t->nchanged && t->changed[i + AHEAD] < size) {
                PREFETCH(PyList_GET_ITEM(entities, t->changed[i + AHEAD]));
            }
            if (i + AHEAD / 2 < t->nchanged && t->changed[i + AHEAD / 2] < size) {
                Body *soon = (Body *)PyList_GET_ITEM(entities, t->changed[i + AHEAD / 2]);
                PREFETCH(soon->vis[0]);
            }
            if (row >= size) {
                continue;
            }
            unsigned char bits = t->changed_bits[i];
            if (t->arena) {
                /* the new committed value into the float the slot shows: no entity touched */
                for (int f = 0; f < MOTION; f++) {
                    if (bits & (1 << f)) {
                        PyFloatObject *mine = ARENA(t, f, row);
                        if (!(t->detached[row] & (1 << f)) && Py_REFCNT((PyObject *)mine) == HOLD + 1) {
                            mine->ob_fval = t->num[CUR][f][row];
                        }
                        else if (arena_show(t, (Body *)PyList_GET_ITEM(entities, row), f, row,
                                            t->num[CUR][f][row], NULL) < 0) {
                            return NULL;
                        }
                    }
                }
                continue;
            }
            Body *body = (Body *)PyList_GET_ITEM(entities, row);
            for (int f = 0; f < MOTION; f++) {
                if (bits & (1 << f)) {
                    /* the object the entity wrote is now what everyone reads */
                    PyObject *pending = t->held[f][row];
                    t->held[f][row] = NULL;
                    if (pending != NULL) {
                        Py_XSETREF(body->vis[f], pending);
                    }
                }
            }
        }
    }
    t->nchanged = 0;
    Py_RETURN_NONE;
}

/* A failed tick: drop what is pending (next becomes current again). */
static PyObject *
table_abort(Table *t, PyObject *unused)
{
    for (int c = 0; c < t->nnum; c++) {
        memcpy(t->num[NEXT][c], t->num[CUR][c], sizeof(double) * (size_t)t->count);
    }
    for (int c = 0; c < t->nobj; c++) {
        for (Py_ssize_t r = 0; r < t->count; r++) {
            PyObject *value = t->obj[CUR][c][r];
            Py_XINCREF(value);
            Py_XSETREF(t->obj[NEXT][c][r], value);
        }
    }
    for (Py_ssize_t i = 0; i < t->nchanged; i++) {
        for (int f = 0; f < MOTION; f++) {
            Py_CLEAR(t->held[f][t->changed[i]]);
        }
    }
    t->nchanged = 0;
    t->updating = NULL;
    Py_RETURN_NONE;
}

/* A checkpoint of the table: its count, one bytes of its current and previous numbers,
 * and a tuple of its current and previous objects. */
static PyObject *
table_keep(Table *t, PyObject *unused)
{
    size_t column = sizeof(double) * (size_t)t->count;
    PyObject *numbers = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(column * 2 * (size_t)t->nnum));
    if (numbers == NULL) {
        return NULL;
    }
    char *at = PyBytes_AS_STRING(numbers);
    for (int c = 0; c < t->nnum; c++) {
        memcpy(at, t->num[CUR][c], column);
        memcpy(at + column, t->num[PREV][c], column);
        at += 2 * column;
    }
    PyObject *objects = PyTuple_New(2 * t->nobj * t->count);
    if (objects == NULL) {
        Py_DECREF(numbers);
        return NULL;
    }
    Py_ssize_t i = 0;
    for (int c = 0; c < t->nobj; c++) {
        for (int b = PREV; b <= CUR; b++) {
            for (Py_ssize_t r = 0; r < t->count; r++) {
                PyObject *value = t->obj[b][c][r] ? t->obj[b][c][r] : Py_None;
                Py_INCREF(value);
                PyTuple_SET_ITEM(objects, i++, value);
            }
        }
    }
    return Py_BuildValue("(nNN)", t->count, numbers, objects);
}

/* put_back(kept, entities): the table holds what keep() returned again (next = current).
 * For the slots design (entities a list), every entity whose motion values differ from
 * what its slots show gets them boxed again: found by comparing columns, not objects. */
static PyObject *
table_put_back(Table *t, PyObject *args)
{
    Py_ssize_t count;
    PyObject *numbers, *objects, *entities;
    if (!PyArg_ParseTuple(args, "(nO!O!)O", &count, &PyBytes_Type, &numbers, &PyTuple_Type, &objects, &entities)) {
        return NULL;
    }
    size_t column = sizeof(double) * (size_t)count;
    if (count != t->count || (size_t)PyBytes_GET_SIZE(numbers) != column * 2 * (size_t)t->nnum
        || PyTuple_GET_SIZE(objects) != 2 * t->nobj * count) {
        PyErr_SetString(PyExc_ValueError, "Table.put_back: not a checkpoint of this table's rows");
        return NULL;
    }
    int slots = entities != Py_None;
    if (slots && (!PyList_CheckExact(entities) || PyList_GET_SIZE(entities) != count || t->nnum < MOTION)) {
        PyErr_SetString(PyExc_TypeError, "Table.put_back: entities must be the list of the table's rows");
        return NULL;
    }
    const char *at = PyBytes_AS_STRING(numbers);
    if (slots) {
        const double *kept_x = (const double *)at, *kept_y = (const double *)(at + 2 * column),
                     *kept_a = (const double *)(at + 4 * column);
        const double *kept[MOTION] = {kept_x, kept_y, kept_a};
        for (Py_ssize_t r = 0; r < count; r++) {
            if (r + AHEAD < count && !t->arena) {
                PREFETCH(PyList_GET_ITEM(entities, r + AHEAD));
            }
            if (r + AHEAD / 2 < count && !t->arena) {
                Py_ssize_t soon = r + AHEAD / 2;
                for (int f = 0; f < MOTION; f++) {
                    if (memcmp(&kept[f][soon], &t->num[CUR][f][soon], sizeof(double)) != 0) {
                        PREFETCH(((Body *)PyList_GET_ITEM(entities, soon))->vis[f]);
                    }
                }
            }
            for (int f = 0; f < MOTION; f++) {
                /* bits, not ==: -0.0 and NaN must show as kept */
                if (memcmp(&kept[f][r], &t->num[CUR][f][r], sizeof(double)) != 0) {
                    if (t->arena) {
                        PyFloatObject *mine = ARENA(t, f, r);
                        if (!(t->detached[r] & (1 << f)) && Py_REFCNT((PyObject *)mine) == HOLD + 1) {
                            mine->ob_fval = kept[f][r];
                        }
                        else if (arena_show(t, (Body *)PyList_GET_ITEM(entities, r), f, r, kept[f][r], NULL) < 0) {
                            return NULL;
                        }
                        continue;
                    }
                    Body *body = (Body *)PyList_GET_ITEM(entities, r);
                    PyObject *shown = body->vis[f];
                    if (shown != NULL && Py_REFCNT(shown) == 1 && PyFloat_CheckExact(shown)) {
                        /* a float only this slot holds: no one else can see it change, so
                         * it takes the kept value in place instead of a new float */
                        ((PyFloatObject *)shown)->ob_fval = kept[f][r];
                        continue;
                    }
                    PyObject *box = PyFloat_FromDouble(kept[f][r]);
                    if (box == NULL) {
                        return NULL;
                    }
                    Py_XSETREF(body->vis[f], box);
                }
            }
        }
    }
    for (int c = 0; c < t->nnum; c++) {
        memcpy(t->num[CUR][c], at, column);
        memcpy(t->num[NEXT][c], at, column);
        memcpy(t->num[PREV][c], at + column, column);
        at += 2 * column;
    }
    Py_ssize_t i = 0;
    for (int c = 0; c < t->nobj; c++) {
        for (int b = PREV; b <= CUR; b++) {
            for (Py_ssize_t r = 0; r < count; r++) {
                PyObject *value = PyTuple_GET_ITEM(objects, i++);
                Py_INCREF(value);
                Py_XSETREF(t->obj[b][c][r], value);
                if (b == CUR) {
                    Py_INCREF(value);
                    Py_XSETREF(t->obj[NEXT][c][r], value);
                }
            }
        }
    }
    t->nchanged = 0;
    Py_RETURN_NONE;
}

/* view(buffer, column): a read-only memoryview of a numeric column's live rows (0
 * previous, 1 current, 2 next). Valid until the next commit or growth. */
static PyObject *
table_view(Table *t, PyObject *args)
{
    int buffer, column;
    if (!PyArg_ParseTuple(args, "ii", &buffer, &column)) {
        return NULL;
    }
    if (buffer < 0 || buffer > 2 || column < 0 || column >= t->nnum) {
        PyErr_SetString(PyExc_IndexError, "Table.view: no such buffer or column");
        return NULL;
    }
    if (t->count == 0) {
        return PyMemoryView_FromMemory((char *)"", 0, PyBUF_READ);
    }
    return PyMemoryView_FromMemory((char *)t->num[buffer][column], sizeof(double) * t->count, PyBUF_READ);
}

static PyObject *
table_value(Table *t, PyObject *args)
{
    int buffer, column, is_object;
    Py_ssize_t row;
    if (!PyArg_ParseTuple(args, "iinp", &buffer, &column, &row, &is_object)) {
        return NULL;
    }
    if (buffer < 0 || buffer > 2 || row < 0 || row >= t->count || column < 0
        || column >= (is_object ? t->nobj : t->nnum)) {
        PyErr_SetString(PyExc_IndexError, "Table.value: no such buffer, row or column");
        return NULL;
    }
    if (is_object) {
        PyObject *value = t->obj[buffer][column][row];
        return Py_NewRef(value ? value : Py_None);
    }
    return PyFloat_FromDouble(t->num[buffer][column][row]);
}

static PyObject *
table_get_count(Table *t, void *closure)
{
    return PyLong_FromSsize_t(t->count);
}

static PyObject *
table_get_updating(Table *t, void *closure)
{
    return Py_NewRef(t->updating ? t->updating : Py_None);
}

static PyMethodDef table_methods[] = {
    {"take", (PyCFunction)table_take, METH_VARARGS, "Move an entity's row into this table."},
    {"commit", (PyCFunction)table_commit, METH_O, "Rotate the buffers; current is copied into next."},
    {"abort", (PyCFunction)table_abort, METH_NOARGS, "Drop the pending values."},
    {"keep", (PyCFunction)table_keep, METH_NOARGS, "A checkpoint of the columns."},
    {"put_back", (PyCFunction)table_put_back, METH_VARARGS, "Restore a checkpoint of the columns."},
    {"view", (PyCFunction)table_view, METH_VARARGS, "A memoryview of a numeric column."},
    {"value", (PyCFunction)table_value, METH_VARARGS, "One value of one buffer."},
    {NULL},
};

static PyGetSetDef table_getset[] = {
    {"count", (getter)table_get_count, NULL, "rows in use (freed rows included)", NULL},
    {"updating", (getter)table_get_updating, NULL, "the entity whose update runs", NULL},
    {NULL},
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "columns.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = table_new,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_traverse = (traverseproc)table_traverse,
    .tp_clear = (inquiry)table_clear,
    .tp_methods = table_methods,
    .tp_getset = table_getset,
};

/* ------------------------------------------------------------------------------------ */
/* Reading and writing a field                                                            */

static int
refuse(PyObject *writer, PyObject *entity, const char *field)
{
    PyObject *where = NULL;
    PyFrameObject *frame = PyEval_GetFrame();
    if (frame != NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        where = PyUnicode_FromFormat("%U:%d", code->co_filename, PyFrame_GetLineNumber(frame));
        Py_DECREF(code);
    }
    if (where == NULL) {
        PyErr_Clear();
        where = Py_NewRef(Py_None);
    }
    PyObject *error = on_foreign == NULL ? NULL
        : PyObject_CallFunction(on_foreign, "OOsO", writer, entity, field, where);
    Py_DECREF(where);
    if (error == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_RuntimeError, "a foreign write of %s", field);
        }
        return -1;
    }
    PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    Py_DECREF(error);
    return -1;
}

static int
as_double(PyObject *value, const char *field, double *out)
{
    if (value == NULL) {
        PyErr_Format(PyExc_AttributeError, "%s is buffered: it cannot be deleted", field);
        return -1;
    }
    if (PyFloat_CheckExact(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    if (PyBool_Check(value) || !(PyFloat_Check(value) || PyLong_Check(value))) {
        PyErr_Format(PyExc_TypeError, "%s takes a number (float or int), got %R", field, value);
        return -1;
    }
    *out = PyFloat_AsDouble(value);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* The getset and descriptor designs: a read boxes the value of the right buffer. */
static inline PyObject *
read_number(Body *body, Table *t, Py_ssize_t row, int column)
{
    Table *motion = body->motion;
    int buffer = motion->updating == (PyObject *)body ? NEXT : CUR;
    return PyFloat_FromDouble(t->num[buffer][column][row]);
}

static inline int
write_number(Body *body, Table *t, Py_ssize_t row, int column, PyObject *value, const char *field)
{
    double number;
    if (as_double(value, field, &number) < 0) {
        return -1;
    }
    PyObject *updating = body->motion->updating;
    if (updating == (PyObject *)body) {
        t->num[NEXT][column][row] = number;
        return 0;
    }
    if (updating != NULL) {
        return refuse(updating, (PyObject *)body, field);
    }
    t->num[CUR][column][row] = t->num[NEXT][column][row] = number;
    if (t->nursery) {
        t->num[PREV][column][row] = number;
    }
    return 0;
}

static PyObject *
get_x(Body *self, void *closure)
{
    return read_number(self, self->motion, self->row, (int)(Py_intptr_t)closure);
}

static int
set_x(Body *self, PyObject *value, void *closure)
{
    int column = (int)(Py_intptr_t)closure;
    return write_number(self, self->motion, self->row, column, value, motion_names[column]);
}

/* Column: a C descriptor type, one per field, put on the Python class. */
typedef struct {
    PyObject_HEAD
    int own;        /* 0: the motion table, 1: the class's own table */
    int column;
    int is_object;
    PyObject *name;
    const char *cname;
} Column;

static PyObject *
column_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *name;
    int own, column, is_object;
    if (!PyArg_ParseTuple(args, "Uipp", &name, &own, &column, &is_object)) {
        return NULL;
    }
    if (column < 0 || column >= MAXCOLS || (!own && (is_object || column >= MOTION))) {
        PyErr_SetString(PyExc_ValueError, "Column: no such column");
        return NULL;
    }
    Column *self = (Column *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->own = own;
    self->column = column;
    self->is_object = is_object;
    self->name = Py_NewRef(name);
    self->cname = PyUnicode_AsUTF8(name);
    return (PyObject *)self;
}

static void
column_dealloc(Column *self)
{
    Py_XDECREF(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
column_get(Column *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    if (!(IS_BODY(obj))) {
        PyErr_Format(PyExc_TypeError, "%U: not an entity of the prototype", self->name);
        return NULL;
    }
    Body *body = (Body *)obj;
    Table *t = self->own ? body->own : body->motion;
    Py_ssize_t row = self->own ? body->own_row : body->row;
    if (t == NULL) {
        PyErr_Format(PyExc_AttributeError, "%U has no row yet", self->name);
        return NULL;
    }
    if (!self->is_object) {
        return read_number(body, t, row, self->column);
    }
    int buffer = body->motion->updating == obj ? NEXT : CUR;
    PyObject *value = t->obj[buffer][self->column][row];
    return Py_NewRef(value ? value : Py_None);
}

static int
column_set(Column *self, PyObject *obj, PyObject *value)
{
    if (!(IS_BODY(obj))) {
        PyErr_Format(PyExc_TypeError, "%U: not an entity of the prototype", self->name);
        return -1;
    }
    Body *body = (Body *)obj;
    Table *t = self->own ? body->own : body->motion;
    Py_ssize_t row = self->own ? body->own_row : body->row;
    if (t == NULL) {
        PyErr_Format(PyExc_AttributeError, "%U has no row yet", self->name);
        return -1;
    }
    if (!self->is_object) {
        return write_number(body, t, row, self->column, value, self->cname);
    }
    if (value == NULL) {
        PyErr_Format(PyExc_AttributeError, "%U is buffered: it cannot be deleted", self->name);
        return -1;
    }
    PyObject *updating = body->motion->updating;
    if (updating != NULL && updating != obj) {
        return refuse(updating, obj, self->cname);
    }
    Py_INCREF(value);
    Py_XSETREF(t->obj[NEXT][self->column][row], value);
    if (updating == NULL) {
        Py_INCREF(value);
        Py_XSETREF(t->obj[CUR][self->column][row], value);
        if (t->nursery) {
            Py_INCREF(value);
            Py_XSETREF(t->obj[PREV][self->column][row], value);
        }
    }
    return 0;
}

static PyTypeObject ColumnType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "columns.Column",
    .tp_basicsize = sizeof(Column),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = column_new,
    .tp_dealloc = (destructor)column_dealloc,
    .tp_descr_get = (descrgetfunc)column_get,
    .tp_descr_set = (descrsetfunc)column_set,
};

/* ------------------------------------------------------------------------------------ */
/* The entity base types                                                                  */

static PyObject *empty_tuple = NULL;

static PyObject *
body_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    /* Through object's own tp_new, not tp_alloc: it is what gives instances of a Python
     * subclass CPython's inline attribute values (3.11+), without which every plain
     * attribute of the entity (self.patrolling_left) is a dictionary lookup. */
    Body *self = (Body *)PyBaseObject_Type.tp_new(type, empty_tuple, NULL);
    if (self == NULL) {
        return NULL;
    }
    for (int f = 0; f < MOTION; f++) {
        self->vis[f] = PyFloat_FromDouble(0.0);
        if (self->vis[f] == NULL) {
            Py_DECREF(self);
            return NULL;
        }
    }
    Py_ssize_t row = table_new_row(nursery);
    if (row < 0) {
        Py_DECREF(self);
        return NULL;
    }
    self->motion = (Table *)Py_NewRef(nursery);
    self->row = row;
    return (PyObject *)self;
}

static int
body_traverse(Body *self, visitproc visit, void *arg)
{
    for (int f = 0; f < MOTION; f++) {
        Py_VISIT(self->vis[f]);
    }
    Py_VISIT(self->motion);
    Py_VISIT(self->own);
    return 0;
}

static int
body_clear(Body *self)
{
    for (int f = 0; f < MOTION; f++) {
        Py_CLEAR(self->vis[f]);
    }
    return 0;
}

static void
body_dealloc(Body *self)
{
    PyObject_GC_UnTrack(self);
    body_clear(self);
    if (self->motion != NULL && self->motion->nursery) {
        table_free_row(self->motion, self->row);
    }
    if (self->own != NULL && self->own->nursery) {
        table_free_row(self->own, self->own_row);
    }
    Py_CLEAR(self->motion);
    Py_CLEAR(self->own);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
body_get_row(Body *self, void *closure)
{
    return PyLong_FromSsize_t(self->row);
}

static PyObject *
body_get_pending(Body *self, void *closure)
{
    return PyBool_FromLong(self->motion != NULL && self->motion->updating == (PyObject *)self);
}

static PyGetSetDef getset_body_getset[] = {
    {"x", (getter)get_x, (setter)set_x, "x, in the world's x column", (void *)0},
    {"y", (getter)get_x, (setter)set_x, "y, in the world's y column", (void *)1},
    {"angle", (getter)get_x, (setter)set_x, "angle, in the world's angle column", (void *)2},
    {"_row", (getter)body_get_row, NULL, "the entity's row in its motion table", NULL},
    {"_updating", (getter)body_get_pending, NULL, "whether its own update runs", NULL},
    {NULL},
};

static PyTypeObject GetsetBodyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "columns.GetsetBody",
    .tp_basicsize = sizeof(Body),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = body_new,
    .tp_dealloc = (destructor)body_dealloc,
    .tp_traverse = (traverseproc)body_traverse,
    .tp_clear = (inquiry)body_clear,
    .tp_getset = getset_body_getset,
};

/* The slots design: x, y and angle are member descriptors of three object slots that
 * show what a reader must see (read-only to the generic setattr, so ``object.__setattr__``
 * cannot bypass the table); every write goes through ``slot_setattro``. */
static int
slot_index(PyObject *name)
{
    if (name == s_x) return 0;
    if (name == s_y) return 1;
    if (name == s_angle) return 2;
    if (PyUnicode_CheckExact(name) && !PyUnicode_CHECK_INTERNED(name)) {
        for (int f = 0; f < MOTION; f++) {
            if (PyUnicode_CompareWithASCIIString(name, motion_names[f]) == 0) {
                return f;
            }
        }
    }
    return -1;
}

static int
slot_setattro(PyObject *obj, PyObject *name, PyObject *value)
{
    int f = slot_index(name);
    if (f < 0) {
        return PyObject_GenericSetAttr(obj, name, value);
    }
    Body *body = (Body *)obj;
    double number;
    if (as_double(value, motion_names[f], &number) < 0) {
        return -1;
    }
    Table *t = body->motion;
    PyObject *updating = t->updating;
    if (updating != NULL && updating != obj) {
        return refuse(updating, obj, motion_names[f]);
    }
    t->num[NEXT][f][body->row] = number;
    if (updating == obj && t->arena) {
        /* its own reads see what it wrote; the arena float waits (held by the table) */
        body->dirty |= (unsigned char)(1 << f);
        Py_INCREF(value);
        Py_XSETREF(body->vis[f], value);
        return 0;
    }
    if (updating == obj) {
        unsigned char bit = (unsigned char)(1 << f);
        if (!(body->dirty & bit)) {
            /* the first write of f in its update: the committed object waits aside */
            body->dirty |= bit;
            PyObject *committed = body->vis[f];
            body->vis[f] = Py_NewRef(value);
            Py_XSETREF(t->held[f][body->row], committed);
            return 0;
        }
        Py_INCREF(value);
        Py_XSETREF(body->vis[f], value);
        return 0;
    }
    t->num[CUR][f][body->row] = number;
    if (t->arena) {
        return arena_show(t, body, f, body->row, number, value);
    }
    Py_INCREF(value);
    Py_XSETREF(body->vis[f], value);
    if (t->nursery) {
        t->num[PREV][f][body->row] = number;
    }
    return 0;
}

static PyMemberDef slot_body_members[] = {
    {"x", MEMBER_OBJECT, offsetof(Body, vis) + 0 * sizeof(PyObject *), MEMBER_READONLY, "x: committed, or pending to its own update"},
    {"y", MEMBER_OBJECT, offsetof(Body, vis) + 1 * sizeof(PyObject *), MEMBER_READONLY, "y"},
    {"angle", MEMBER_OBJECT, offsetof(Body, vis) + 2 * sizeof(PyObject *), MEMBER_READONLY, "angle"},
    {NULL},
};

static PyGetSetDef slot_body_getset[] = {
    {"_row", (getter)body_get_row, NULL, "the entity's row in its motion table", NULL},
    {"_updating", (getter)body_get_pending, NULL, "whether its own update runs", NULL},
    {NULL},
};

static PyTypeObject SlotBodyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "columns.SlotBody",
    .tp_basicsize = sizeof(Body),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = body_new,
    .tp_dealloc = (destructor)body_dealloc,
    .tp_traverse = (traverseproc)body_traverse,
    .tp_clear = (inquiry)body_clear,
    .tp_members = slot_body_members,
    .tp_getset = slot_body_getset,
    .tp_setattro = slot_setattro,
};

/* ------------------------------------------------------------------------------------ */
/* Runner: the world iterates it and calls each entity's update                           */

typedef struct {
    PyObject_HEAD
    Table *table;
    PyObject *entities;   /* a list, row order */
    Py_ssize_t next;
    Body *current;        /* strong */
} Runner;

/* The slots design: the entity that has just updated shows its committed values again,
 * and its written fields are remembered for the commit. */
static int
settle(Runner *runner)
{
    Body *body = runner->current;
    if (body == NULL) {
        return 0;
    }
    runner->current = NULL;
    Table *t = runner->table;
    t->updating = NULL;
    unsigned char bits = body->dirty;
    if (bits) {
        body->dirty = 0;
        for (int f = 0; f < MOTION && t->arena; f++) {
            if (bits & (1 << f)) {
                /* the slot shows the arena float (the committed value) again */
                PyFloatObject *mine = ARENA(t, f, body->row);
                if (!(t->detached[body->row] & (1 << f))) {
                    Py_INCREF(mine);
                    Py_XSETREF(body->vis[f], (PyObject *)mine);
                }
                else {
                    PyObject *box = PyFloat_FromDouble(t->num[CUR][f][body->row]);
                    if (box == NULL) {
                        Py_DECREF(body);
                        return -1;
                    }
                    Py_XSETREF(body->vis[f], box);
                }
            }
        }
        for (int f = 0; f < MOTION && !t->arena; f++) {
            if (bits & (1 << f)) {
                /* committed back into the slot, the pending object aside until the commit */
                PyObject *pending = body->vis[f];
                body->vis[f] = t->held[f][body->row];
                t->held[f][body->row] = pending;
            }
        }
        if (t->nchanged < t->capacity) {
            t->changed[t->nchanged] = body->row;
            t->changed_bits[t->nchanged++] = bits;
        }
    }
    Py_DECREF(body);
    return 0;
}

static PyObject *
runner_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Table *table;
    PyObject *entities;
    if (!PyArg_ParseTuple(args, "O!O!", &TableType, &table, &PyList_Type, &entities)) {
        return NULL;
    }
    if (table->nnum < MOTION || PyList_GET_SIZE(entities) > table->count) {
        PyErr_SetString(PyExc_ValueError, "Runner: entities must be the rows of a motion table");
        return NULL;
    }
    Runner *self = (Runner *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->table = (Table *)Py_NewRef(table);
    self->entities = Py_NewRef(entities);
    table->nchanged = 0;
    return (PyObject *)self;
}

static PyObject *
runner_next(Runner *self)
{
    if (settle(self) < 0) {
        return NULL;
    }
    if (self->next >= PyList_GET_SIZE(self->entities)) {
        return NULL;
    }
    PyObject *entity = PyList_GET_ITEM(self->entities, self->next);
    self->next++;
    if (!(IS_BODY(entity)) || ((Body *)entity)->motion != self->table) {
        PyErr_SetString(PyExc_TypeError, "Runner: an entity that is not a row of this table");
        return NULL;
    }
    self->current = (Body *)Py_NewRef(entity);
    self->table->updating = entity;
    return Py_NewRef(entity);
}

/* close(): settle the entity whose update failed (the world calls it before abort). */
static PyObject *
runner_close(Runner *self, PyObject *unused)
{
    if (settle(self) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static void
runner_dealloc(Runner *self)
{
    if (self->current != NULL) {
        if (self->table->updating == (PyObject *)self->current) {
            self->table->updating = NULL;
        }
        Py_CLEAR(self->current);
    }
    Py_XDECREF(self->table);
    Py_XDECREF(self->entities);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef runner_methods[] = {
    {"close", (PyCFunction)runner_close, METH_NOARGS, "Settle the entity whose update failed."},
    {NULL},
};

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "columns.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = runner_new,
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)runner_next,
    .tp_methods = runner_methods,
};

/* ------------------------------------------------------------------------------------ */

static PyObject *
configure(PyObject *module, PyObject *callback)
{
    Py_XSETREF(on_foreign, Py_NewRef(callback));
    Py_RETURN_NONE;
}

static PyObject *
get_nursery(PyObject *module, PyObject *unused)
{
    return Py_NewRef(nursery);
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_O, "Set the callable that makes the error of a foreign write."},
    {"nursery", get_nursery, METH_NOARGS, "The motion table of entities not spawned yet."},
    {NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "columns", NULL, -1, module_methods};

PyMODINIT_FUNC
PyInit_columns(void)
{
    PyTypeObject *types[] = {&TableType, &GetsetBodyType, &SlotBodyType, &ColumnType, &RunnerType};
    const char *names[] = {"Table", "GetsetBody", "SlotBody", "Column", "Runner"};
    for (int i = 0; i < 5; i++) {
        if (PyType_Ready(types[i]) < 0) {
            return NULL;
        }
    }
    empty_tuple = PyTuple_New(0);
    s_x = PyUnicode_InternFromString("x");
    s_y = PyUnicode_InternFromString("y");
    s_angle = PyUnicode_InternFromString("angle");
    nursery = (Table *)PyObject_CallFunction((PyObject *)&TableType, "iii", MOTION, 0, 1);
    if (empty_tuple == NULL || s_x == NULL || s_y == NULL || s_angle == NULL || nursery == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    for (int i = 0; i < 5; i++) {
        Py_INCREF(types[i]);
        if (PyModule_AddObject(module, names[i], (PyObject *)types[i]) < 0) {
            Py_DECREF(types[i]);
            Py_DECREF(module);
            return NULL;
        }
    }
    return module;
}
