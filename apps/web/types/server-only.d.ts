// Next.js resolves `server-only` itself (a build error if a client bundle imports the module);
// this declaration only tells TypeScript the side-effect import is intentional.
declare module 'server-only';
