// Filled in by issue 47; wired into exports, tsup, typedoc, tsconfig and vitest already.
export {};
