/* The DataModel Lua module: the five operations, typed values both ways, undo/redo, integrity,
 * copy/paste, change sets between two documents, levels; misuse raises with the model's message. */
#include "../lua/lua_test.h"

#include "datamodel.h"

static int setup(void **state)
{
    int r = lua_test_setup(state);
    return r ? r : datamodel__bind_lua();
}

static void operations_and_values(void **state)
{
    (void)state;
    lua_test_run(
        "local doc = DataModel.new('alice')\n"
        "local e = doc:create()\n"
        "assert(#e == 32 and doc:exists(e))\n"
        "doc:set(e, 'name', 'crate')\n"
        "doc:set(e, 'mass', 2.5)\n"
        "doc:set(e, 'static', true)\n"
        "doc:set(e, 'position', {1, 2, 3})\n"
        "doc:set(e, 'rotation', {0, 0, 0, 1})\n"
        "doc:set(e, 'data', {blob = 'a\\0b'})\n"
        "doc:set(e, 'target', {guid = DataModel.ROOT})\n"
        "doc:add(DataModel.ROOT, 'entities', e)\n"
        "local v, t = doc:get(e, 'position')\n"
        "assert(t == 'vector3' and v[1] == 1 and v[3] == 3)\n"
        "v, t = doc:get(e, 'rotation') assert(t == 'quaternion' and v[4] == 1)\n"
        "v, t = doc:get(e, 'data') assert(t == 'blob' and v == 'a\\0b')\n"
        "v, t = doc:get(e, 'target') assert(t == 'guid' and v == DataModel.ROOT)\n"
        "v, t = doc:get(DataModel.ROOT, 'entities') assert(t == 'set' and v[1] == e)\n"
        "assert(doc:get(e, 'mass') == 2.5 and doc:get(e, 'static') == true)\n"
        "assert(doc:get(e, 'missing') == nil)\n"
        "local keys = doc:keys(e) assert(#keys == 7 and keys[1] == 'name')\n"
        "doc:restore_point()\n"
        "doc:set(e, 'name', 'barrel') doc:restore_point()\n"
        "local applied, skipped = doc:undo()\n"
        "assert(applied == 1 and #skipped == 0 and doc:get(e, 'name') == 'crate')\n"
        "doc:redo() assert(doc:get(e, 'name') == 'barrel')\n"
        "doc:set(e, 'dangling', {guid = '0000000000000000000000000000dead'})\n"
        "local issues = doc:check()\n"
        "assert(#issues == 1 and issues[1].kind == 'dangling' and issues[1].key == 'dangling')\n",
        0);
}

static void copies_changes_and_levels(void **state)
{
    (void)state;
    lua_test_run(
        "local a = DataModel.new('alice')\n"
        "a:record(true)\n"
        "local e = a:create() a:set(e, 'name', 'door') a:add(DataModel.ROOT, 'entities', e)\n"
        "local pasted = a:paste(a:copy({e}))\n"
        "assert(#pasted == 1 and pasted[1] ~= e and a:get(pasted[1], 'name') == 'door')\n"
        "local b = DataModel.new('bob')\n"
        "local changes = a:take_changes()\n"
        "local applied = b:apply(changes)\n"
        "assert(applied == 5 and b:get(e, 'name') == 'door')\n"
        "assert(b:apply(changes) == 0)\n"
        "local level = DataModel.read_level('entities = [ { name = \"x\" } ]\\n', 'x.level')\n"
        "local id = level:get(DataModel.ROOT, 'entities')[1]\n"
        "level:set(id, 'name', 'y')\n"
        "assert(level:write_level() == 'entities = [ { name = \"y\" } ]\\n')\n",
        0);
}

static void misuse_raises(void **state)
{
    (void)state;
    lua_test_run(
        "local doc = DataModel.new()\n"
        "local ok, err = pcall(doc.set, doc, 'xyz', 'k', 1)\n"
        "assert(not ok and err:find(\"'xyz' is not a GUID of 32 hex digits\"), err)\n"
        "ok, err = pcall(doc.set, doc, '0000000000000000000000000000000a', 'k', 1)\n"
        "assert(not ok and err:find('the object does not exist'), err)\n"
        "doc:set(DataModel.ROOT, 'name', 'level')\n"
        "ok, err = pcall(doc.add, doc, DataModel.ROOT, 'name', DataModel.ROOT)\n"
        "assert(not ok and err:find('not a set'), err)\n"
        "ok, err = pcall(doc.apply, doc, 'ops = [')\n"
        "assert(not ok and err:find('changes:1:8'), err)\n"
        "ok, err = pcall(DataModel.read_level, 'entities = [ { id = \"1\" } ]', 'bad.level')\n"
        "assert(not ok and err:find('bad.level:1:21'), err)\n",
        0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(operations_and_values, setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(copies_changes_and_levels, setup, lua_test_teardown),
        cmocka_unit_test_setup_teardown(misuse_raises, setup, lua_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
