/**
 * Pure: JSON.parse that keeps every digit of an integer too large for a double (above 2^53): such
 * a number becomes a string of its digits, so two ids that would round to the same double stay
 * two ids. Everything else parses as JSON.parse does; text that is no JSON throws as it does.
 */
export function parseJsonKeepingDigits(text: string): unknown {
	if (!/\d{16}/.test(text)) return JSON.parse(text);
	let out = '';
	let from = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (inString) {
			if (c === '\\') i++;
			else if (c === '"') inString = false;
			continue;
		}
		if (c === '"') {
			inString = true;
			continue;
		}
		if (c === '-' || (c >= '0' && c <= '9')) {
			const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
			if (!match) continue;
			const token = match[0];
			if (
				match[1] === undefined &&
				match[2] === undefined &&
				!Number.isSafeInteger(Number(token))
			) {
				out += `${text.slice(from, i)}"${token}"`;
				from = i + token.length;
			}
			i += token.length - 1;
		}
	}
	return JSON.parse(out + text.slice(from));
}
