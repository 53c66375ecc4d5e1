// Placeholder until the Redis store lands (issue 4).
export {};
