package web

import "time"

// Dashboard is what the dashboard shows at one moment. The node fills it
// (DashboardOptions.Source); the handler adds the clock (Now,
// UptimeSeconds) and the bridge services' rates. Its JSON form is the
// dashboard's API: the page, the JSON answer and each Server-Sent Event
// carry the same document.
type Dashboard struct {
	Version       string    `json:"version"`
	Started       time.Time `json:"started"`
	Now           time.Time `json:"now"`
	UptimeSeconds int64     `json:"uptime_seconds"`
	// Realms are every realm of the node with its counts, in config order.
	Realms []DashboardRealm `json:"realms"`
	// Realm is the realm the query asked for (or the first one) in
	// detail; nil when the node has no realm or the asked one is unknown.
	Realm *DashboardRealmDetail `json:"realm"`
	// BridgeServices are the HTTP bridge services (caller, publisher,
	// webhook) and REST components (callee, subscriber), in config order.
	BridgeServices []DashboardBridgeService `json:"bridge_services"`
	// SubscriberQueues are the Subscriber components' delivery queues.
	SubscriberQueues []DashboardQueue `json:"subscriber_queues"`
}

// DashboardRealm is one realm and what lives on it.
type DashboardRealm struct {
	Name          string `json:"name"`
	Sessions      int    `json:"sessions"`
	Registrations int    `json:"registrations"`
	Subscriptions int    `json:"subscriptions"`
}

// DashboardRealmDetail is one realm's sessions (one page of them, oldest
// first), registrations and subscriptions (the first ones, by URI).
type DashboardRealmDetail struct {
	Name     string             `json:"name"`
	Sessions []DashboardSession `json:"sessions"`
	// SessionsTotal is the number of sessions; Page (from 1) of Pages is
	// the one listed, PageSize sessions a page.
	SessionsTotal      int                     `json:"sessions_total"`
	Page               int                     `json:"page"`
	Pages              int                     `json:"pages"`
	PageSize           int                     `json:"page_size"`
	Registrations      []DashboardRegistration `json:"registrations"`
	RegistrationsTotal int                     `json:"registrations_total"`
	Subscriptions      []DashboardSubscription `json:"subscriptions"`
	SubscriptionsTotal int                     `json:"subscriptions_total"`
}

// DashboardSession is one joined session.
type DashboardSession struct {
	ID         uint64    `json:"id"`
	AuthID     string    `json:"authid"`
	AuthRole   string    `json:"authrole"`
	AuthMethod string    `json:"authmethod"`
	Transport  string    `json:"transport"`
	Serializer string    `json:"serializer"`
	Peer       string    `json:"peer"` // "" for the node's own sessions
	Joined     time.Time `json:"joined"`
}

// DashboardRegistration is one registration and its number of callees.
type DashboardRegistration struct {
	ID        uint64 `json:"id"`
	Procedure string `json:"procedure"`
	Match     string `json:"match"`
	Invoke    string `json:"invoke"`
	Callees   int    `json:"callees"`
}

// DashboardSubscription is one subscription and its number of
// subscribers.
type DashboardSubscription struct {
	ID          uint64 `json:"id"`
	Topic       string `json:"topic"`
	Match       string `json:"match"`
	Subscribers int    `json:"subscribers"`
}

// DashboardBridgeService is one bridge service and its request counts
// since the node started. The handler fills the rates.
type DashboardBridgeService struct {
	// Type is "caller", "publisher", "webhook", "callee" or "subscriber".
	Type string `json:"type"`
	// Where is the service's URL path ("/call") or the component's
	// target ("http://backend:8000/api").
	Where string `json:"where"`
	Realm string `json:"realm"`
	// Counted says whether Requests and Errors are counted; false when
	// the node does not count this service's requests.
	Counted  bool   `json:"counted"`
	Requests uint64 `json:"requests"`
	// Errors are the requests that failed: no response, or a status of
	// 400 or more.
	Errors uint64 `json:"errors"`
	// RequestsPerSecond and ErrorsPerSecond are the rates over the last
	// DashboardOptions.Interval or more; nil until there are two samples.
	RequestsPerSecond *float64 `json:"requests_per_second"`
	ErrorsPerSecond   *float64 `json:"errors_per_second"`
}

// DashboardQueue is one Subscriber component's delivery queue.
type DashboardQueue struct {
	Component string `json:"component"`
	Topic     string `json:"topic"`
	Depth     int    `json:"depth"`
	Retries   uint64 `json:"retries"`
	Dropped   uint64 `json:"dropped"`
}

// DashboardQuery is what a request asks the Source for: the realm to show
// in detail ("" means the first), and which page of its sessions (from
// 1), PageSize sessions a page.
type DashboardQuery struct {
	Realm    string
	Page     int
	PageSize int
}
