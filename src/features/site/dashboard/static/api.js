// Starts Swagger UI on this server's OpenAPI document. A file of its own: the page's
// Content-Security-Policy runs scripts from this server only, never inline ones.
'use strict';
window.ui = window.SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  // The default asks validator.swagger.io about the document: no call leaves this server's page.
  validatorUrl: null,
  deepLinking: true,
  // Every route listed, collapsed, grouped by tag: the page opens on the route index.
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  filter: true,
  displayRequestDuration: true,
  persistAuthorization: false,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
