// The service's release number (reported by /health, the OpenAPI document and MCP serverInfo).
export const VERSION = '1.1.0'
