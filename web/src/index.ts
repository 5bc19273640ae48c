// The web package is built by its own issue; this module only keeps the build honest until then.
export {};
