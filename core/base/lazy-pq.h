#ifndef TK_LAZY_PQ_H
#define TK_LAZY_PQ_H
/*
 * libpq, loaded when tracker first opens a postgresql:// database
 * (core/base/lazylib.h). plugins/store/postgres.c includes this, not
 * <libpq-fe.h>: the libpq functions it calls are the pointers of tk_pq
 * under their own names, and opening the store loads it. A function not
 * listed here is a link error: add it to the list.
 */
#include <libpq-fe.h>

#include "core/base/err.h"

#define TK_PQ_FUNCS(X) \
	X(PQclear) \
	X(PQcmdTuples) \
	X(PQconnectPoll) \
	X(PQconnectStartParams) \
	X(PQconninfo) \
	X(PQconninfoFree) \
	X(PQconninfoParse) \
	X(PQconsumeInput) \
	X(PQerrorMessage) \
	X(PQfinish) \
	X(PQflush) \
	X(PQfreemem) \
	X(PQgetResult) \
	X(PQgetisnull) \
	X(PQgetlength) \
	X(PQgetvalue) \
	X(PQisBusy) \
	X(PQntuples) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendQuery) \
	X(PQsendQueryParams) \
	X(PQsetNoticeProcessor) \
	X(PQsocket) \
	X(PQstatus)

struct tk_pq_api {
#define TK_PQ_PTR(f) __typeof__(f) *f;
	TK_PQ_FUNCS(TK_PQ_PTR)
#undef TK_PQ_PTR
};
extern struct tk_pq_api tk_pq;

/* Loads libpq.so.5 (core/base/lazylib.h): 0, or TK_EUNAVAIL saying what
 * is missing. Call it before any of the functions below. */
int tk_pq_load(struct tk_err *err);

#ifndef TK_LAZY_PQ_IMPL
#define PQclear (*tk_pq.PQclear)
#define PQcmdTuples (*tk_pq.PQcmdTuples)
#define PQconnectPoll (*tk_pq.PQconnectPoll)
#define PQconnectStartParams (*tk_pq.PQconnectStartParams)
#define PQconninfo (*tk_pq.PQconninfo)
#define PQconninfoFree (*tk_pq.PQconninfoFree)
#define PQconninfoParse (*tk_pq.PQconninfoParse)
#define PQconsumeInput (*tk_pq.PQconsumeInput)
#define PQerrorMessage (*tk_pq.PQerrorMessage)
#define PQfinish (*tk_pq.PQfinish)
#define PQflush (*tk_pq.PQflush)
#define PQfreemem (*tk_pq.PQfreemem)
#define PQgetResult (*tk_pq.PQgetResult)
#define PQgetisnull (*tk_pq.PQgetisnull)
#define PQgetlength (*tk_pq.PQgetlength)
#define PQgetvalue (*tk_pq.PQgetvalue)
#define PQisBusy (*tk_pq.PQisBusy)
#define PQntuples (*tk_pq.PQntuples)
#define PQresultErrorField (*tk_pq.PQresultErrorField)
#define PQresultErrorMessage (*tk_pq.PQresultErrorMessage)
#define PQresultStatus (*tk_pq.PQresultStatus)
#define PQsendQuery (*tk_pq.PQsendQuery)
#define PQsendQueryParams (*tk_pq.PQsendQueryParams)
#define PQsetNoticeProcessor (*tk_pq.PQsetNoticeProcessor)
#define PQsocket (*tk_pq.PQsocket)
#define PQstatus (*tk_pq.PQstatus)
#endif

#endif
