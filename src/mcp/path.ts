/** Where an app serves its MCP server (mount.ts); its own module, so the server need not import the mount that loads it. */
export const MCP_PATH = '/mcp'
