import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';

const depConstraints = [
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:host', onlyDependOnLibsWithTags: ['type:lib', 'type:service'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib'] },
  // Clients (kg CLI, kg-mcp, dashboard) talk to the public REST API only, through the client SDK.
  { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:client-lib'] },
  { sourceTag: 'type:client-lib', onlyDependOnLibsWithTags: ['type:client-lib'] },
];
const moduleBoundaries = (constraints) => ({
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: constraints,
});

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.tools/**',
      '.nx/**',
      'data/**',
      'services/*/drizzle/**',
      'load-tests/**',
      'deploy/**',
      'clients/extension/.output*/**',
      'clients/extension/.wxt/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Module boundaries: a service never imports another service; libraries never import services;
      // only the one-process host (type:host) mounts services' modules.
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries(depConstraints)],
    },
  },
  {
    // Tests may also use the test libraries (type:test-lib: the OpenID test provider); code never does.
    files: ['**/*.test.ts', 'test/**/*.ts', 'clients/*/tests/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        moduleBoundaries([
          ...depConstraints.map((c) => ({
            ...c,
            onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'type:test-lib'],
          })),
          { sourceTag: 'type:test-lib', onlyDependOnLibsWithTags: ['type:lib'] },
        ]),
      ],
    },
  },
  {
    // Tests read loosely typed JSON responses.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Config is parsed once per service in config.ts (STYLE.md): process.env nowhere else.
    files: ['packages/**/*.ts', 'services/**/*.ts'],
    ignores: ['packages/config/src/load.ts', '**/*.test.ts', 'services/*/drizzle.config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through the service config (packages/config).',
        },
      ],
    },
  },
);
