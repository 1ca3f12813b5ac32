/** Filled in after the app is built (the document describes the app itself). */
export const OPENAPI_DOCUMENT = Symbol('OpenApiDocument');
