/* engine.buffering._core: the compiled core of the Double Buffer (see buffers.py).
 *
 * The tick's per-entity bookkeeping, done where it is cheapest: the world still runs
 *
 *     for entity in settler:
 *         entity.update(world)
 *
 * so the update stays a cheap Python-to-Python call, and the settler's next step does
 * the rest in C: it settles the entity that has just updated (keeps its pending values
 * aside when they changed, puts its committed values back), skips despawned entities,
 * and sets the next entity's committed values aside before handing it out. The stash
 * before the loop, the check for foreign writes after it, the commit and the record of
 * previous values are plain C loops over the same slots.
 *
 * Every slot is read at a fixed offset of the pure-Python base class ``BufferSlots``
 * (its ``__slots__``), found once by ``configure()``. Each function checks that an
 * object is an instance of that class before it touches a slot, so a stray object in
 * a list raises ``TypeError`` instead of reading memory it does not own.
 *
 * The semantics are those of the pure-Python path in buffers.py, line for line: the
 * differential test runs both on the same random worlds and compares everything.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

enum {
    S_X, S_Y, S_ANGLE, S_ALIVE, S_MOTION_ONLY,
    S_BX, S_BY, S_BA, S_NX, S_NY, S_NA, S_PX, S_PY, S_PA,
    S_PREV_TICK, S_BFULL, S_NFULL,
    S_COUNT
};

static const char *slot_names[S_COUNT] = {
    "x", "y", "angle", "alive", "_motion_only",
    "_bx", "_by", "_ba", "_nx", "_ny", "_na", "_px", "_py", "_pa",
    "_prev_tick", "_bfull", "_nfull",
};

static Py_ssize_t offsets[S_COUNT];
static PyTypeObject *slots_type = NULL;   /* BufferSlots, set by configure() */
static PyObject *str_layout = NULL;       /* "_layout" */
static PyObject *str_get = NULL;          /* "get" */
static PyObject *str_set = NULL;          /* "set" */

#define SLOT(obj, s) (*(PyObject **)((char *)(obj) + offsets[s]))

/* Entities are reached through a list of pointers, which the hardware cannot prefetch:
 * ask for the one a few places ahead, and for the line of its baseline slots. */
#define AHEAD 16
static inline void
prefetch_entity(PyObject *list, Py_ssize_t i)
{
#if defined(__GNUC__) || defined(__clang__)
    if (i < PyList_GET_SIZE(list)) {
        char *entity = (char *)PyList_GET_ITEM(list, i);
        __builtin_prefetch(entity);
        __builtin_prefetch(entity + offsets[S_BA]);
    }
#else
    (void)list;
    (void)i;
#endif
}

/* Store a new reference to ``value`` in a slot; the old value is released last, since
 * releasing it may run arbitrary code. */
static inline void
slot_set(PyObject *obj, int s, PyObject *value)
{
    PyObject **where = (PyObject **)((char *)obj + offsets[s]);
    PyObject *old = *where;
    Py_XINCREF(value);
    *where = value;
    Py_XDECREF(old);
}

/* Exchange the values of two slots: no reference changes hands, nothing is released. */
static inline void
slot_swap(PyObject *obj, int a, int b)
{
    PyObject **first = (PyObject **)((char *)obj + offsets[a]);
    PyObject **second = (PyObject **)((char *)obj + offsets[b]);
    PyObject *value = *first;
    *first = *second;
    *second = value;
}

static PyObject *
missing(PyObject *obj, int s)
{
    PyErr_Format(PyExc_AttributeError, "'%.200s' object has no attribute '%s'", Py_TYPE(obj)->tp_name,
                 slot_names[s]);
    return NULL;
}

/* A slot's value (borrowed), or NULL with AttributeError set, as reading it in Python would. */
static inline PyObject *
slot_get(PyObject *obj, int s)
{
    PyObject *value = SLOT(obj, s);
    if (value == NULL) {
        return missing(obj, s);
    }
    return value;
}

static PyTypeObject *checked_type = NULL;  /* the last subclass that passed (held strongly) */

static inline int
check_entity(PyObject *obj)
{
    PyTypeObject *type = Py_TYPE(obj);
    if (type == checked_type) {
        return 0;
    }
    if (slots_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core is not configured");
        return -1;
    }
    if (type == slots_type || PyType_IsSubtype(type, slots_type)) {
        Py_INCREF(type);
        Py_XSETREF(checked_type, type);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected an Entity, got %.200s", Py_TYPE(obj)->tp_name);
    return -1;
}

/* 1 if the entity keeps only x, y and angle, 0 if it has buffered fields of its own. */
static int
motion_only(PyObject *obj)
{
    PyObject *flag = slot_get(obj, S_MOTION_ONLY);
    if (flag == NULL) {
        return -1;
    }
    if (flag == Py_True) {
        return 1;
    }
    if (flag == Py_False) {
        return 0;
    }
    return PyObject_IsTrue(flag);
}

/* type(entity)._layout.get(entity): every buffered value as a tuple (new reference). */
static PyObject *
layout_get(PyObject *obj)
{
    PyObject *layout = PyObject_GetAttr((PyObject *)Py_TYPE(obj), str_layout);
    if (layout == NULL) {
        return NULL;
    }
    PyObject *getter = PyObject_GetAttr(layout, str_get);
    Py_DECREF(layout);
    if (getter == NULL) {
        return NULL;
    }
    PyObject *values = PyObject_CallOneArg(getter, obj);
    Py_DECREF(getter);
    return values;
}

/* type(entity)._layout.set(entity, values). */
static int
layout_set(PyObject *obj, PyObject *values)
{
    PyObject *layout = PyObject_GetAttr((PyObject *)Py_TYPE(obj), str_layout);
    if (layout == NULL) {
        return -1;
    }
    PyObject *result = PyObject_CallMethodObjArgs(layout, str_set, obj, values, NULL);
    Py_DECREF(layout);
    if (result == NULL) {
        return -1;
    }
    Py_DECREF(result);
    return 0;
}

static int
check_list(PyObject *obj, const char *what)
{
    if (!PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list, got %.200s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* -- configure -------------------------------------------------------------------------- */

static PyObject *
core_configure(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "configure() takes the class that declares the buffer slots");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    Py_ssize_t found[S_COUNT];
    for (int s = 0; s < S_COUNT; s++) {
        PyObject *descriptor = PyDict_GetItemString(type->tp_dict, slot_names[s]);
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "%.200s has no slot %s", type->tp_name, slot_names[s]);
            return NULL;
        }
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type != T_OBJECT_EX || (member->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "%.200s.%s is not a plain writable slot", type->tp_name, slot_names[s]);
            return NULL;
        }
        found[s] = member->offset;
    }
    memcpy(offsets, found, sizeof(offsets));
    Py_INCREF(type);
    Py_XSETREF(slots_type, type);
    Py_RETURN_NONE;
}

/* -- stash, check, commit, previous ------------------------------------------------------ */

static PyObject *
core_stash(PyObject *module, PyObject *order)
{
    if (check_list(order, "order") < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(order); i++) {
        PyObject *entity = PyList_GET_ITEM(order, i);
        prefetch_entity(order, i + AHEAD);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        if (SLOT(entity, S_MOTION_ONLY) == Py_True && SLOT(entity, S_X) != NULL && SLOT(entity, S_Y) != NULL
                && SLOT(entity, S_ANGLE) != NULL) {
            /* The common case, with no call out: the list's reference keeps the entity,
             * and what the baseline slots held is released once it is done with. The
             * same object again (a value that did not change) needs no reference. */
            PyObject *spent[3] = {NULL, NULL, NULL};
            for (int k = 0; k < 3; k++) {
                PyObject **base = (PyObject **)((char *)entity + offsets[S_BX + k]);
                PyObject *value = SLOT(entity, S_X + k);
                if (*base != value) {
                    Py_INCREF(value);
                    spent[k] = *base;
                    *base = value;
                }
            }
            Py_XDECREF(spent[0]);
            Py_XDECREF(spent[1]);
            Py_XDECREF(spent[2]);
            continue;
        }
        Py_INCREF(entity);
        int only = motion_only(entity);
        if (only == 1) {
            PyObject *x = slot_get(entity, S_X), *y, *angle;
            if (x == NULL || (y = slot_get(entity, S_Y)) == NULL || (angle = slot_get(entity, S_ANGLE)) == NULL) {
                Py_DECREF(entity);
                return NULL;
            }
            slot_set(entity, S_BX, x);
            slot_set(entity, S_BY, y);
            slot_set(entity, S_BA, angle);
        }
        else if (only == 0) {
            PyObject *values = layout_get(entity);
            if (values == NULL) {
                Py_DECREF(entity);
                return NULL;
            }
            slot_set(entity, S_BFULL, values);
            Py_DECREF(values);
        }
        Py_DECREF(entity);
        if (only < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* 1 if an entity's committed values differ from its baseline (another entity wrote
 * them), 0 if not, -1 on error. */
static int
differs_from_baseline(PyObject *entity)
{
    int only = motion_only(entity), differs = -1;
    if (only == 1) {
        PyObject *x = slot_get(entity, S_X), *y, *angle, *bx, *by, *ba;
        if (x != NULL && (y = slot_get(entity, S_Y)) != NULL && (angle = slot_get(entity, S_ANGLE)) != NULL
                && (bx = slot_get(entity, S_BX)) != NULL && (by = slot_get(entity, S_BY)) != NULL
                && (ba = slot_get(entity, S_BA)) != NULL) {
            differs = x != bx || y != by || angle != ba;
        }
    }
    else if (only == 0) {
        PyObject *values = layout_get(entity);
        PyObject *base = values == NULL ? NULL : slot_get(entity, S_BFULL);
        if (base != NULL) {
            differs = PyObject_RichCompareBool(values, base, Py_NE);
        }
        Py_XDECREF(values);
    }
    return differs;
}

/* The check for foreign writes and the commit, in one pass over ``order``.
 *
 * Every entity is compared with its baseline (identity for x, y, angle; ``!=`` for the
 * tuple of an entity with fields of its own): those that differ were written by another
 * entity's update, and are returned, with nothing committed. Otherwise (and unless
 * ``refuse``) the pending values of the ``moved`` entities (a subsequence of ``order``,
 * in the same order, as the settler found them) move into place and the old committed
 * ones into the pending slots, by exchanging pointers. With ``tick`` not None (no system
 * runs after the Update Method system), the same pass records previous values (see
 * commit_and_record) and empties ``moved``, which ``record_previous`` would otherwise do
 * after every system.
 *
 * The commit of an entity happens as the pass reaches it, while it is in the cache; a
 * foreign write found later undoes the commits already made (exchanges are their own
 * inverse; the replaced previous ticks are kept until the pass ends). */
typedef struct {
    PyObject *entity;
    PyObject *prev_tick;   /* owned: put back if the commit is undone */
} Committed;

#define SLOT_AT(obj, s) ((PyObject **)((char *)(obj) + offsets[s]))

/* Commit one of x, y, angle (``k``) and record its previous value, for an entity whose
 * committed value is its baseline (C), with its pending value (P) and its previous one
 * (O): the three references rotate, committed <- P, previous <- C, pending <- O (spent,
 * released when the entity next moves: right after its update has made a new value, so
 * the allocator gets it straight back), and the baseline becomes P, so that the next
 * stash finds it in place. Nothing is released here that could be freed: C stays
 * referenced by the previous slot. */
static inline void
commit_and_record(PyObject *entity, int k)
{
    PyObject **committed = SLOT_AT(entity, S_X + k), **pending = SLOT_AT(entity, S_NX + k);
    PyObject **previous = SLOT_AT(entity, S_PX + k), **baseline = SLOT_AT(entity, S_BX + k);
    PyObject *was = *committed, *now = *pending;
    *committed = now;
    *pending = *previous;
    *previous = was;
    Py_INCREF(now);
    *baseline = now;
    Py_DECREF(was);   /* the baseline's reference; ``previous`` keeps it alive */
}

/* The exact inverse of commit_and_record. */
static inline void
undo_commit_and_record(PyObject *entity, int k)
{
    PyObject **committed = SLOT_AT(entity, S_X + k), **pending = SLOT_AT(entity, S_NX + k);
    PyObject **previous = SLOT_AT(entity, S_PX + k), **baseline = SLOT_AT(entity, S_BX + k);
    PyObject *was = *previous, *now = *committed;
    *previous = *pending;
    *pending = now;
    *committed = was;
    Py_INCREF(was);
    *baseline = was;
    Py_DECREF(now);   /* the baseline's reference; ``pending`` keeps it alive */
}

static PyObject *
core_commit(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "commit(order, moved, tick, refuse) takes 4 arguments");
        return NULL;
    }
    PyObject *order = args[0], *moved = args[1], *tick = args[2];
    int refuse = PyObject_IsTrue(args[3]);
    if (refuse < 0 || check_list(order, "order") < 0 || check_list(moved, "moved") < 0) {
        return NULL;
    }
    int record = tick != Py_None;
    Py_ssize_t moved_count = PyList_GET_SIZE(moved), next_moved = 0, committed = 0;
    /* The log is kept from tick to tick (a fresh one of this size would be mapped and
     * faulted in anew every tick), unless a commit runs inside another one (a getter of
     * a buffered field ticking a world): that one gets a log of its own. */
    static Committed *kept = NULL;
    static Py_ssize_t kept_size = 0;
    static int kept_in_use = 0;
    Committed *log;
    int own_log = kept_in_use;
    if (own_log) {
        log = PyMem_Malloc(sizeof(Committed) * (size_t)(moved_count > 0 ? moved_count : 1));
        if (log == NULL) {
            return PyErr_NoMemory();
        }
    }
    else {
        if (moved_count > kept_size) {
            Committed *larger = PyMem_Realloc(kept, sizeof(Committed) * (size_t)moved_count);
            if (larger == NULL) {
                return PyErr_NoMemory();
            }
            kept = larger;
            kept_size = moved_count;
        }
        log = kept;
        kept_in_use = 1;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        if (own_log) {
            PyMem_Free(log);
        }
        else {
            kept_in_use = 0;
        }
        return NULL;
    }
    int failed = 0;
    Py_INCREF(order);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(order) && !failed; i++) {
        PyObject *entity = PyList_GET_ITEM(order, i);
        prefetch_entity(order, i + AHEAD);
        if (check_entity(entity) < 0) {
            failed = 1;
            break;
        }
        /* Only an entity with fields of its own calls out (its layout's getter): only it
         * needs a reference of its own while it is checked. */
        int plain = SLOT(entity, S_MOTION_ONLY) == Py_True;
        if (!plain) {
            Py_INCREF(entity);
        }
        int differs = differs_from_baseline(entity);
        if (differs < 0 || (differs == 1 && PyList_Append(found, entity) < 0)) {
            failed = 1;
        }
        else if (next_moved < PyList_GET_SIZE(moved) && PyList_GET_ITEM(moved, next_moved) == entity) {
            next_moved++;
            if (!refuse && PyList_GET_SIZE(found) == 0 && committed < moved_count) {
                if (SLOT(entity, S_NX) == NULL || SLOT(entity, S_NY) == NULL || SLOT(entity, S_NA) == NULL
                        || SLOT(entity, S_PX) == NULL || SLOT(entity, S_PY) == NULL || SLOT(entity, S_PA) == NULL
                        || SLOT(entity, S_PREV_TICK) == NULL) {
                    missing(entity, S_NX);
                    failed = 1;
                }
                else {
                    log[committed].entity = entity;
                    log[committed].prev_tick = NULL;
                    if (!record) {
                        slot_swap(entity, S_X, S_NX);
                        slot_swap(entity, S_Y, S_NY);
                        slot_swap(entity, S_ANGLE, S_NA);
                    }
                    else {
                        for (int k = 0; k < 3; k++) {
                            commit_and_record(entity, k);
                        }
                        PyObject **where = (PyObject **)((char *)entity + offsets[S_PREV_TICK]);
                        log[committed].prev_tick = *where;   /* the slot's reference moves to the log */
                        Py_INCREF(tick);
                        *where = tick;
                        /* Empty ``moved`` as the pass goes, while the entity is in the cache
                         * (``order`` still holds it). */
                        PyList_SET_ITEM(moved, next_moved - 1, NULL);
                        Py_DECREF(entity);
                    }
                    committed++;
                }
            }
        }
        if (!plain) {
            Py_DECREF(entity);
        }
    }
    int keep = !failed && PyList_GET_SIZE(found) == 0 && !refuse;
    if (!keep) {
        /* Undo, last first: every exchange again, and the previous ticks put back. */
        for (Py_ssize_t k = committed - 1; k >= 0; k--) {
            PyObject *entity = log[k].entity;
            if (!record) {
                slot_swap(entity, S_X, S_NX);
                slot_swap(entity, S_Y, S_NY);
                slot_swap(entity, S_ANGLE, S_NA);
            }
            else {
                for (int k = 2; k >= 0; k--) {
                    undo_commit_and_record(entity, k);
                }
                PyObject **where = (PyObject **)((char *)entity + offsets[S_PREV_TICK]);
                PyObject *spent = *where;
                *where = log[k].prev_tick;
                Py_DECREF(spent);
            }
        }
    }
    else {
        for (Py_ssize_t k = 0; k < committed; k++) {
            Py_XDECREF(log[k].prev_tick);
        }
    }
    Py_DECREF(order);   /* held until now: it keeps the entities of the log alive */
    if (record && committed > 0) {
        /* The emptied places are the first ``committed``: drop them, keep the rest. */
        PyObject **items = ((PyListObject *)moved)->ob_item;
        Py_ssize_t left = PyList_GET_SIZE(moved) - committed;
        memmove(items, items + committed, (size_t)left * sizeof(PyObject *));
        Py_SET_SIZE(moved, left);
    }
    if (own_log) {
        PyMem_Free(log);
    }
    else {
        kept_in_use = 0;
    }
    if (failed) {
        Py_DECREF(found);
        return NULL;
    }
    if (!keep) {
        return found;
    }
    Py_DECREF(found);
    if (next_moved != moved_count || PyList_GET_SIZE(moved) != (record ? 0 : moved_count)) {
        PyErr_SetString(PyExc_RuntimeError, "commit: moved is not a subsequence of order");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The baseline becomes the previous values, again by exchanging pointers: the baseline
 * slots are spent until the next stash overwrites them. */
static PyObject *
core_record_previous(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "record_previous(moved, tick) takes 2 arguments");
        return NULL;
    }
    PyObject *moved = args[0], *tick = args[1];
    if (check_list(moved, "moved") < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(moved); i++) {
        PyObject *entity = PyList_GET_ITEM(moved, i);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        if (SLOT(entity, S_BX) == NULL || SLOT(entity, S_BY) == NULL || SLOT(entity, S_BA) == NULL) {
            return missing(entity, S_BX);
        }
        slot_swap(entity, S_PX, S_BX);
        slot_swap(entity, S_PY, S_BY);
        slot_swap(entity, S_PA, S_BA);
        if (SLOT(entity, S_PREV_TICK) != tick) {
            Py_INCREF(entity);
            slot_set(entity, S_PREV_TICK, tick);
            Py_DECREF(entity);
        }
    }
    Py_RETURN_NONE;
}

/* -- the settler ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *order;      /* list of entities, in update order */
    PyObject *moved;      /* list: motion-only entities whose values changed */
    PyObject *changed;    /* list: entities with fields of their own whose values changed */
    Py_ssize_t index;
    PyObject *current;    /* the entity handed out last (updating now), or NULL */
    int current_motion_only;
    PyObject *before[3];  /* its committed x, y, angle, set aside */
    PyObject *before_full;
} Settler;

static void
settler_forget(Settler *self)
{
    Py_CLEAR(self->before[0]);
    Py_CLEAR(self->before[1]);
    Py_CLEAR(self->before[2]);
    Py_CLEAR(self->before_full);
}

/* The current entity has returned from update(): keep what it wrote aside, put back what
 * was committed. */
static int
settle(Settler *self)
{
    PyObject *entity = self->current;
    if (self->current_motion_only) {
        PyObject *x = slot_get(entity, S_X), *y, *angle;
        if (x == NULL || (y = slot_get(entity, S_Y)) == NULL || (angle = slot_get(entity, S_ANGLE)) == NULL) {
            return -1;
        }
        /* Identity, not equality: an unchanged attribute is the same object. */
        if (x != self->before[0] || y != self->before[1] || angle != self->before[2]) {
            if (PyList_Append(self->moved, entity) < 0) {
                return -1;
            }
            /* Move references, don't copy them: the values written go to the pending
             * slots, the ones set aside back to the committed slots; what the pending
             * slots held (spent) is released last. */
            PyObject *spent[3];
            for (int k = 0; k < 3; k++) {
                PyObject **committed = (PyObject **)((char *)entity + offsets[S_X + k]);
                PyObject **pending = (PyObject **)((char *)entity + offsets[S_NX + k]);
                spent[k] = *pending;
                *pending = *committed;
                *committed = self->before[k];
                self->before[k] = NULL;
            }
            Py_XDECREF(spent[0]);
            Py_XDECREF(spent[1]);
            Py_XDECREF(spent[2]);
        }
    }
    else {
        PyObject *after = layout_get(entity);
        if (after == NULL) {
            return -1;
        }
        int differs = PyObject_RichCompareBool(after, self->before_full, Py_NE);
        if (differs == 1) {
            slot_set(entity, S_NFULL, after);
            if (PyList_Append(self->changed, entity) < 0 || layout_set(entity, self->before_full) < 0) {
                differs = -1;
            }
        }
        Py_DECREF(after);
        if (differs < 0) {
            return -1;
        }
    }
    settler_forget(self);
    Py_CLEAR(self->current);
    return 0;
}

static PyObject *
settler_next(Settler *self)
{
    if (self->current != NULL && settle(self) < 0) {
        return NULL;
    }
    while (self->order != NULL && self->index < PyList_GET_SIZE(self->order)) {
        PyObject *entity = PyList_GET_ITEM(self->order, self->index);
        self->index++;
        prefetch_entity(self->order, self->index + AHEAD);
        if (check_entity(entity) < 0) {
            return NULL;
        }
        Py_INCREF(entity);
        Py_XSETREF(self->current, entity);   /* named by the error if anything below fails */
        PyObject *alive = slot_get(entity, S_ALIVE);
        if (alive == NULL) {
            return NULL;
        }
        int live = alive == Py_True ? 1 : alive == Py_False ? 0 : PyObject_IsTrue(alive);
        if (live < 0) {
            return NULL;
        }
        if (!live) {
            Py_CLEAR(self->current);
            continue;
        }
        int only = motion_only(entity);
        if (only < 0) {
            return NULL;
        }
        self->current_motion_only = only;
        if (only) {
            PyObject *x = slot_get(entity, S_X), *y, *angle;
            if (x == NULL || (y = slot_get(entity, S_Y)) == NULL || (angle = slot_get(entity, S_ANGLE)) == NULL) {
                return NULL;
            }
            Py_INCREF(x);
            Py_INCREF(y);
            Py_INCREF(angle);
            self->before[0] = x;
            self->before[1] = y;
            self->before[2] = angle;
        }
        else {
            self->before_full = layout_get(entity);
            if (self->before_full == NULL) {
                return NULL;
            }
        }
        Py_INCREF(entity);
        return entity;
    }
    Py_CLEAR(self->order);
    return NULL;
}

static PyObject *
settler_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *order, *moved, *changed;
    static char *keywords[] = {"order", "moved", "changed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!:Settler", keywords, &PyList_Type, &order,
                                     &PyList_Type, &moved, &PyList_Type, &changed)) {
        return NULL;
    }
    if (slots_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine.buffering._core is not configured");
        return NULL;
    }
    Settler *self = (Settler *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->order = Py_NewRef(order);
    self->moved = Py_NewRef(moved);
    self->changed = Py_NewRef(changed);
    return (PyObject *)self;
}

static int
settler_traverse(Settler *self, visitproc visit, void *arg)
{
    Py_VISIT(self->order);
    Py_VISIT(self->moved);
    Py_VISIT(self->changed);
    Py_VISIT(self->current);
    Py_VISIT(self->before[0]);
    Py_VISIT(self->before[1]);
    Py_VISIT(self->before[2]);
    Py_VISIT(self->before_full);
    return 0;
}

static int
settler_clear(Settler *self)
{
    Py_CLEAR(self->order);
    Py_CLEAR(self->moved);
    Py_CLEAR(self->changed);
    Py_CLEAR(self->current);
    settler_forget(self);
    return 0;
}

static void
settler_dealloc(Settler *self)
{
    PyObject_GC_UnTrack(self);
    settler_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
settler_get_current(Settler *self, void *closure)
{
    return Py_NewRef(self->current != NULL ? self->current : Py_None);
}

static PyGetSetDef settler_getset[] = {
    {"current", (getter)settler_get_current, NULL,
     "The entity whose update() is running (or failed), or None.", NULL},
    {NULL},
};

PyDoc_STRVAR(settler_doc,
"Settler(order, moved, changed)\n--\n\n"
"Iterate over the live entities of ``order`` for their updates, settling each one after it:\n"
"pending values kept aside (``moved`` / ``changed`` list the entities that changed),\n"
"committed values put back. See engine.buffering.buffers.");

static PyTypeObject SettlerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine.buffering._core.Settler",
    .tp_basicsize = sizeof(Settler),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = settler_doc,
    .tp_new = settler_new,
    .tp_dealloc = (destructor)settler_dealloc,
    .tp_traverse = (traverseproc)settler_traverse,
    .tp_clear = (inquiry)settler_clear,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)settler_next,
    .tp_getset = settler_getset,
};

/* -- the renderer's gather ---------------------------------------------------------------- */

static inline int
as_double(PyObject *value, double *out)
{
    if (PyFloat_CheckExact(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 0;
    }
    *out = PyFloat_AsDouble(value);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* Python's float % (the result takes the sign of the divisor), as numpy.remainder. */
static inline double
py_mod(double a, double b)
{
    double mod = fmod(a, b);
    if (mod) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
        }
    }
    else {
        mod = copysign(0.0, b);
    }
    return mod;
}

static PyObject *
core_gather_motion(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *entities, *tick;
    double alpha;
    Py_buffer view;
    int extrapolate = 0;
    static char *keywords[] = {"entities", "tick", "alpha", "out", "extrapolate", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!Odw*|p:gather_motion", keywords, &PyList_Type, &entities,
                                     &tick, &alpha, &view, &extrapolate)) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(entities);
    PyObject *result = NULL;
    if (view.itemsize != 4 || view.len < count * 3 * 4
            || (view.format != NULL && strcmp(view.format, "f") != 0 && strcmp(view.format, "<f") != 0
                && strcmp(view.format, "=f") != 0)) {
        PyErr_SetString(PyExc_TypeError, "gather_motion: out must be a writable float32 buffer of at least "
                                         "len(entities) * 3 values");
        goto done;
    }
    float *out = (float *)view.buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entity = PyList_GET_ITEM(entities, i);
        if (check_entity(entity) < 0) {
            goto done;
        }
        PyObject *values[3], *previous[3];
        for (int k = 0; k < 3; k++) {
            if ((values[k] = slot_get(entity, S_X + k)) == NULL) {
                goto done;
            }
        }
        PyObject *prev_tick = slot_get(entity, S_PREV_TICK);
        if (prev_tick == NULL) {
            goto done;
        }
        int same = prev_tick == tick ? 1 : PyObject_RichCompareBool(prev_tick, tick, Py_EQ);
        if (same < 0) {
            goto done;
        }
        for (int k = 0; k < 3; k++) {
            if (!same) {
                previous[k] = values[k];
            }
            else if ((previous[k] = slot_get(entity, S_PX + k)) == NULL) {
                goto done;
            }
        }
        double x, y, angle, px, py, pa;
        if (as_double(values[0], &x) < 0 || as_double(values[1], &y) < 0 || as_double(values[2], &angle) < 0
                || as_double(previous[0], &px) < 0 || as_double(previous[1], &py) < 0
                || as_double(previous[2], &pa) < 0) {
            goto done;
        }
        double turn = py_mod(angle - pa + 180.0, 360.0) - 180.0;
        float *row = out + 3 * i;
        if (extrapolate) {
            row[0] = (float)(x + (x - px) * alpha);
            row[1] = (float)(y + (y - py) * alpha);
            row[2] = (float)(angle + turn * alpha);
        }
        else {
            row[0] = (float)(px + (x - px) * alpha);
            row[1] = (float)(py + (y - py) * alpha);
            row[2] = (float)(angle - turn * (1.0 - alpha));
        }
        /* A NaN's sign and payload depend on how the C compiler and numpy order the
         * arithmetic: write the one canonical NaN, as the numpy fallback does. */
        for (int k = 0; k < 3; k++) {
            if (isnan(row[k])) {
                row[k] = NAN;
            }
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}

/* -- the module ---------------------------------------------------------------------------- */

static PyMethodDef core_methods[] = {
    {"configure", (PyCFunction)core_configure, METH_O,
     "configure(cls)\n--\n\nRead the slot offsets of the class that declares the buffer slots."},
    {"stash", (PyCFunction)core_stash, METH_O,
     "stash(order)\n--\n\nSet every entity's committed values aside (the baseline)."},
    {"commit", (PyCFunction)(void (*)(void))core_commit, METH_FASTCALL,
     "commit(order, moved, tick, refuse)\n--\n\n"
     "The entities written by others (nothing committed), or None: pending x, y, angle committed."},
    {"record_previous", (PyCFunction)(void (*)(void))core_record_previous, METH_FASTCALL,
     "record_previous(moved, tick)\n--\n\nThe baseline of the moved entities becomes their previous values."},
    {"gather_motion", (PyCFunction)(void (*)(void))core_gather_motion, METH_VARARGS | METH_KEYWORDS,
     "gather_motion(entities, tick, alpha, out, extrapolate=False)\n--\n\n"
     "Write every entity's interpolated (x, y, angle) into the float32 buffer out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "engine.buffering._core",
    .m_doc = "The compiled core of the Double Buffer: the tick's per-entity bookkeeping and the "
             "renderer's gather (see engine.buffering.buffers for the protocol).",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&SettlerType) < 0) {
        return NULL;
    }
    str_layout = PyUnicode_InternFromString("_layout");
    str_get = PyUnicode_InternFromString("get");
    str_set = PyUnicode_InternFromString("set");
    if (str_layout == NULL || str_get == NULL || str_set == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&SettlerType);
    if (PyModule_AddObject(module, "Settler", (PyObject *)&SettlerType) < 0) {
        Py_DECREF(&SettlerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
