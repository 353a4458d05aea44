// The provider's own sample payloads, transcribed from its support article "Webhooks" (the one
// docs/api.md cites for the webhook payloads): built by the provider, not by our simulator, so
// tests mapping them cannot agree with our REST records merely by construction.
export const providerSamples = {
	'new-mail': {
		measurement: { width: '9', height: '0.01', length: '4' },
		id: 111111,
		weight: '0.03',
		mail_status: 'INBOX',
		mail_type: 'LETTER',
		image_url: 'https://usgm-fe-media-prod.s3.us-east-1.amazonaws.com/sample_mail.jpg',
		recipient_name: 'John Smith',
		sender_name: 'US Government',
		message: 'New mail received.',
	},
	'shipment-update': {
		id: 'b3ba0f4f-9ae6-4256-8b70-cd5f404756a9',
		auto_forward: 'false',
		destination_address: {
			name: 'Home Address',
			address_line: '2204 18th Street NW',
			address_line_2: 'Apt 3B',
			address_line_3: '',
			city: 'Washington',
			state: 'District of Columbia',
			postal_code: '20009',
			country: 'United States',
			address_type: 'residential',
			tax_id: '123-45-6789',
			phone_number: '+1-202-555-0143',
		},
		service: 'DHL Express Easy',
		status: 'PROCESSED',
		tracking_data: '1234567890',
		message: 'Shipment re',
	},
};
