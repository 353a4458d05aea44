// n8n loads nodes and credentials from the "n8n" block of package.json; nothing is exported here.
module.exports = {};
