/**
 * The Python side of `python:`. It runs with `-c`, so it is never written to disk. The real stdout carries
 * exactly one JSON envelope; anything the tool prints goes to stderr so it cannot corrupt the result. The envelope's
 * channel is a copy of file descriptor 1 (not inherited by children), and descriptor 1 becomes stderr's: a child
 * process the tool starts (`subprocess.run`, `os.system`) writes where `print()` does, not into the result. The
 * arguments (stdin) are read before the tool's module is imported, and descriptor 0 then becomes `/dev/null`: such a
 * child reads end of file, where one started by the module's top level used to read the arguments away. NaN and
 * the infinities have no JSON: a result holding one is the call's failure, said as such.
 */
export const PYTHON_RUNNER = `
import importlib, importlib.util, json, os, sys
skill_dir = os.path.realpath(sys.argv[1])
wanted, func_name = sys.argv[2], sys.argv[3]
sys.stdout.flush()
out = os.fdopen(os.dup(1), 'w')
os.dup2(2, 1)
sys.stdout = sys.stderr
# The arguments are read to their end before the tool's module runs, and descriptor 0 becomes /dev/null: a child
# started at import (or later) with the inherited stdin reads end of file, never the arguments.
given = sys.stdin.read()
devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(devnull, 0)
os.close(devnull)
sys.path[:] = [skill_dir] + [p for p in sys.path[1:] if p not in ('', '.')]

def inside(path):
    # frozen and built-in modules report origins like 'frozen': never local
    if not path or not os.path.isabs(path):
        return False
    return os.path.realpath(path).startswith(skill_dir + os.sep)

def reply(envelope, code):
    out.write(json.dumps(envelope, default=str, allow_nan=False))
    out.flush()
    sys.exit(code)

def where(name):
    try:
        spec = importlib.util.find_spec(name.split('.')[0])
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return 'missing'
    places = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
    return 'inside' if places and all(inside(p) for p in places) else 'outside'

try:
    name = wanted
    parts = wanted.split('.')
    found = where(name)
    # Skills written for the Python original name their module birdie.skills.<skill>.<module>.
    if found != 'inside' and len(parts) > 3 and parts[:2] == ['birdie', 'skills']:
        if where('.'.join(parts[3:])) == 'inside':
            name, found = '.'.join(parts[3:]), 'inside'
    if found == 'missing':
        reply({'ok': False, 'kind': 'module-not-found', 'error': "no module '%s' in the skill folder" % wanted}, 2)
    if found == 'outside':
        reply({'ok': False, 'kind': 'path-escape', 'error': "module '%s' resolves outside the skill folder" % wanted}, 2)
    module = importlib.import_module(name)
    if not inside(getattr(module, '__file__', None) or ''):
        reply({'ok': False, 'kind': 'path-escape', 'error': "module '%s' resolves outside the skill folder" % wanted}, 2)
    fn = getattr(module, func_name, None)
    if not callable(fn):
        reply({'ok': False, 'kind': 'export-not-found', 'error': "module '%s' has no function '%s'" % (wanted, func_name)}, 2)
    args = json.loads(given or '{}')
    result = fn(**args) if isinstance(args, dict) else fn(args)
    if hasattr(result, '__await__'):
        import asyncio  # only coroutine tools pay for asyncio's import time
        async def wait():
            return await result
        result = asyncio.run(wait())
    text = json.dumps({'ok': True, 'result': result}, default=str, allow_nan=False)
except SystemExit:
    raise
except BaseException as error:
    import traceback
    traceback.print_exc()
    reply({'ok': False, 'kind': 'call-failed', 'error': '%s: %s' % (type(error).__name__, error)}, 1)
out.write(text)
out.flush()
`;
