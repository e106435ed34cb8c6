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
  ['home'],
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
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    // The playground page's browser script: tsc (playground/page/tsconfig.json, checkJs with the DOM lib)
    // checks its names and types, so ESLint's Node-only globals list must not.
    files: ['playground/page/**/*.js'],
    rules: { 'no-undef': 'off' },
  },
);
