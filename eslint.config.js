// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The house's floors, lowest first (docs/ARCHITECTURE.md): a folder of `src/` imports only from its own
 * floor's folder or lower ones. Features never import the composition root (`bot`), nor each other upwards.
 */
const FLOORS = [
  ['util', 'format'],
  ['config'],
  ['log-output'],
  ['logger'],
  ['api', 'store'],
  ['slack'],
  ['views'],
  ['app'],
  ['events'],
  ['handoff'],
  ['digests'],
  ['commands'],
  ['home', 'workflows'],
  ['bot'],
];
const OUTSIDE_SRC = ['test', 'bench', 'playground', 'fakes'];

/** One `no-restricted-imports` block per folder: the folders above it, its floor-mates, and code outside src/. */
function floorRules() {
  return FLOORS.flatMap((floor, level) =>
    floor.map((name) => {
      const banned = [...FLOORS.slice(level + 1).flat(), ...floor.filter((other) => other !== name)];
      const files = ['config', 'log-output', 'logger'].includes(name) ? [`src/${name}.ts`] : [`src/${name}/**/*.ts`];
      return {
        files,
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                {
                  regex: `^(\\.{1,2}/)+(${banned.join('|')})(\\.js|/)`,
                  message: `src/${name} sits below these folders (or beside them): see docs/ARCHITECTURE.md › Import rules.`,
                },
                {
                  regex: `^(\\.{1,2}/)+(${OUTSIDE_SRC.join('|')})/`,
                  message: 'Product code never imports tests, benchmarks, the playground or the stand-ins.',
                },
              ],
            },
          ],
        },
      };
    }),
  );
}

/**
 * No fixed waits in tests, the fault suite aside: a sleep passes on a fast machine and fails on a slow one, and an
 * absence asserted after one proves nothing. Tests wait on a condition (test/support/wait.ts), a fake clock or a
 * signal (an awaited handler, a drained queue, the bot saying it is done with a request). Where only real time
 * will do, the line says why: `// eslint-disable-next-line no-restricted-syntax -- <why nothing else works>`.
 */
const FIXED_WAIT =
  'A fixed wait in a test: wait on a condition (test/support/wait.ts), a fake clock or a signal; for a time limit, a waitFor timeout or AbortSignal.timeout. Where only real time will do, disable this line and say why after `--`.';
const fixedWaits = {
  files: ['test/**/*.ts'],
  ignores: ['test/faults/**'],
  plugins: { waits: { rules: { 'explained-exceptions': explainedWaitExceptions() } } },
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: "CallExpression[callee.name='setTimeout']", message: FIXED_WAIT },
      { selector: "CallExpression[callee.property.name='setTimeout']", message: FIXED_WAIT },
      { selector: 'CallExpression[callee.name=/^(sleep|delay)$/]', message: FIXED_WAIT },
    ],
    // A sleep helper is caught where it is called by its name (`sleep(…)`, `delay(…)`), wherever it comes from.
    'no-restricted-imports': [
      'error',
      { paths: ['node:timers/promises', 'timers/promises'].map((name) => ({ name, message: FIXED_WAIT })) },
    ],
    'waits/explained-exceptions': 'error',
  },
};

/**
 * The one way past the fixed-wait rules: a line-by-line disable that names them and says why. A disable of them
 * for a block or a file, of every rule at once, or without a reason of a few words after `--` is reported.
 */
function explainedWaitExceptions() {
  const RULES = /\bno-restricted-(syntax|imports)\b/;
  return {
    meta: {
      type: 'problem',
      schema: [],
      messages: {
        why: 'Say why nothing but a fixed wait works here: `-- <a few words>` after the rule name.',
        lineOnly: 'Disable the fixed-wait rules line by line (eslint-disable-next-line), each with its reason.',
        byName: 'Name the rules you disable: a disable of every rule would let a fixed wait through unexplained.',
      },
    },
    create(context) {
      return {
        Program() {
          for (const comment of context.sourceCode.getAllComments()) {
            const directive = /^\s*eslint-disable(-next-line|-line)?(?:\s+([\s\S]*))?$/.exec(comment.value);
            if (!directive) continue;
            const [rules = '', why = ''] = (directive[2] ?? '').split(/(?:^|\s)--(?:\s|$)/, 2).map((p) => p.trim());
            if (rules === '') context.report({ loc: comment.loc, messageId: 'byName' });
            else if (!RULES.test(rules)) continue;
            else if (!directive[1]) context.report({ loc: comment.loc, messageId: 'lineOnly' });
            else if (why.split(/\s+/).length < 4) context.report({ loc: comment.loc, messageId: 'why' });
          }
        },
      };
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'no-console': 'error',
    },
  },
  ...floorRules(),
  {
    // The environment is read once, in src/config.ts.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment in src/config.ts only.' },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  fixedWaits,
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    // The playground page's browser script: tsc (playground/page/tsconfig.json, checkJs with the DOM lib)
    // checks its names and types, so ESLint's Node-only globals list must not.
    files: ['playground/page/**/*.js'],
    rules: { 'no-undef': 'off' },
  },
);
