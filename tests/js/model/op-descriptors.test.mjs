// Each op's JavaScript knowledge is one descriptor (web/src/ops/), and every
// table the loader, the eager flow and the numeric suite read is derived from
// the descriptors (ops/tables.mjs). A malformed descriptor is refused when the
// library loads, naming it; the derived eager tables match PyTorch's eager
// flow (exact types, Dropout and DeQuantStub unobserved, a quantized twin
// always logged). The numbers are checked by the goldens.
import { nn } from '../../../web/src/nn/index.mjs';
import { DeQuantStub, QuantStub } from '../../../web/src/nn/stubs.mjs';
import {
  DESCRIPTORS,
  eagerRowOf,
  FUSIONS,
  NS_LOGGED,
  NS_QUANTIZED_LAYERS,
  NS_STATE_DICTS,
} from '../../../web/src/ops/registry.mjs';
import { opTables } from '../../../web/src/ops/tables.mjs';

const moduleType = {
  fields: ['min_val'],
  build: () => null,
  info: () => ({}),
  cost: () => null,
  output: () => null,
};
// A module of a class without running its constructor (the tables match classes).
const instance = (Cls) => Object.create(Cls.prototype);

describe('a malformed descriptor is refused, naming it', () => {
  test.each([
    [
      'a misspelt module field list',
      { a: { op: { modules: { T: { ...moduleType, feilds: [] } } } } },
      /a\.op\.modules\.T: unknown feilds/,
    ],
    [
      'a module type without its cost',
      { a: { op: { modules: { T: { ...moduleType, cost: undefined } } } } },
      /op descriptor a\.op\.modules\.T: unknown -; missing cost/,
    ],
    ['a key no table reads', { a: { op: { modlues: {} } } }, /op descriptor a\.op: unknown modlues/],
    [
      'a graph function without run',
      { a: { op: { functions: { f: { args: 1, kwargs: [], cost: () => null } } } } },
      /a\.op\.functions\.f: unknown -; missing run/,
    ],
    [
      'one module type in two descriptors',
      { a: { one: { modules: { T: moduleType } } }, b: { two: { modules: { T: moduleType } } } },
      /op descriptor b\.two: modules 'T' is defined twice/,
    ],
    [
      'two eager rows for one class',
      { a: { one: { eager: [{ float: nn.ReLU6 }] }, two: { eager: [{ float: nn.ReLU6, logged: true }] } } },
      /two eager rows for ReLU6/,
    ],
    [
      'two fusions of one sequence',
      {
        a: {
          op: {
            fusions: [
              { types: [nn.Linear, nn.ReLU], needsEval: false, fuse: () => null },
              { types: [nn.Linear, nn.ReLU], needsEval: true, fuse: () => null },
            ],
          },
        },
      },
      /two fusions of \(Linear, ReLU\)/,
    ],
  ])('%s', (_, families, message) => {
    expect(() => opTables(families)).toThrow(message);
  });

  test('well-formed descriptors give their tables', () => {
    const t = opTables({ a: { op: { modules: { T: moduleType } } } });
    expect(Object.keys(t.moduleTypes)).toEqual(['T']);
    expect([t.fusions, t.nsLogged]).toEqual([[], []]);
  });
});

test("qwasm's descriptors each hold something, and are named by family", () => {
  expect(DESCRIPTORS.length).toBeGreaterThan(15);
  for (const [name, d] of DESCRIPTORS) {
    expect([name, Object.keys(d).length > 0]).toEqual([name, true]);
    expect(name).toMatch(/^\w+\.\w+$/);
  }
});

describe('the eager tables, as PyTorch maps types', () => {
  test('a float layer maps to its twin by its exact class, a FloatFunctional by any subclass', () => {
    expect(eagerRowOf(instance(nn.Conv3d)).quantized).toBe(nn.quantized.Conv3d);
    expect(eagerRowOf(instance(nn.intrinsic.ConvReLU2d))).toMatchObject({
      quantized: nn.intrinsic.quantized.ConvReLU2d,
      fused: true,
      observe: 2,
    });
    expect(eagerRowOf(instance(nn.Linear))).toMatchObject({ quantized: nn.quantized.Linear, observe: 1 });
    expect(eagerRowOf(instance(class extends nn.Conv3d {}))).toBeUndefined();
    class MyFunctional extends nn.quantized.FloatFunctional {}
    expect(eagerRowOf(instance(MyFunctional))).toMatchObject({ observe: 'functional' });
    expect(eagerRowOf(instance(nn.ReLU))).toBeUndefined();
    expect(eagerRowOf(instance(nn.Dropout))).toMatchObject({ skip: true });
    expect(eagerRowOf(instance(nn.BatchNorm3d)).refuse).toMatch(/is a BatchNorm that is not fused/);
  });

  test('fuseModules knows conv + bn (+ relu), conv + relu in 1d / 2d / 3d, linear + bn and linear + relu', () => {
    const names = FUSIONS.map((f) => f.types.map((T) => T.name).join('+')).sort();
    expect(names).toEqual(
      [
        ...[1, 2, 3].flatMap((d) => [`Conv${d}d+BatchNorm${d}d`, `Conv${d}d+BatchNorm${d}d+ReLU`, `Conv${d}d+ReLU`]),
        'Linear+BatchNorm1d',
        'Linear+ReLU',
      ].sort(),
    );
    expect(FUSIONS.filter((f) => f.needsEval).length).toBe(7);
  });

  test('the numeric suite logs what PyTorch logs: not DeQuantStub, Dropout or BatchNorm1d; FloatFunctional op by op', () => {
    const logged = (Cls) => NS_LOGGED.find(([C]) => instance(Cls) instanceof C)?.[1];
    expect(logged(QuantStub)).toEqual(['forward']);
    expect(logged(nn.quantized.Quantize)).toEqual(['forward']);
    expect(logged(nn.quantized.DeQuantize)).toEqual(['forward']);
    expect(logged(DeQuantStub)).toBeUndefined();
    expect(logged(nn.Dropout)).toBeUndefined();
    expect(logged(nn.BatchNorm1d)).toBeUndefined();
    expect(logged(nn.BatchNorm2d)).toEqual(['forward']);
    expect(logged(nn.ReLU6)).toEqual(['forward']);
    expect(logged(nn.ReLU)).toBeUndefined();
    expect(logged(nn.quantized.QFunctional)).toEqual(['add', 'addRelu', 'mul', 'cat', 'addScalar', 'mulScalar']);
    expect(NS_QUANTIZED_LAYERS).toEqual(
      expect.arrayContaining([
        nn.quantized.Conv1d,
        nn.intrinsic.quantized.ConvReLU3d,
        nn.intrinsic.quantized.LinearReLU,
      ]),
    );
    expect(NS_QUANTIZED_LAYERS).toHaveLength(8);
    // A quantized linear's state dict is nnq.Linear's: its qparams, then the packed (weight, bias).
    const entries = NS_STATE_DICTS.find(([C]) => C === nn.quantized.Linear)[1](
      instance(nn.quantized.Linear),
      (k) => `fc.${k}`,
    );
    expect(entries.map(([k, read]) => [k, read === null])).toEqual([
      ['fc.scale', true],
      ['fc.zero_point', true],
      ['fc._packed_params.dtype', true],
      ['fc._packed_params._packed_params', false],
    ]);
  });
});
